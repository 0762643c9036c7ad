import type { ProjectOptions } from "../options.js";
import { localUrl } from "./package-json.js";
import { runsOn, runtimeNote, runtimeScripts, stdioCommand, workerSections } from "./readme-runtime.js";
import { RESET_SCOPE } from "./sign-in-source.js";

const fence = (lang: string, body: string) => `\`\`\`${lang}\n${body}\n\`\`\``;
const URL = "http://127.0.0.1:3000/mcp";

const REDIS = `## Redis

With \`REDIS_URL\` set (\`REDIS_URL=redis://127.0.0.1:6379 npm start\`), the HTTP server keeps its sessions, tasks,
subscriptions and SSE events in Redis (\`@toolsmith/redis\`, Redis 7): run several processes behind any load
balancer, or restart one, and clients carry on. Without it, one process holds them in memory. See
\`@toolsmith/redis\`'s README for what Redis must be configured with.`;

function tracing({ transport }: ProjectOptions): string {
  const ends =
    transport === "stdio"
      ? "when stdin ends or a signal comes"
      : transport === "http"
        ? "on SIGTERM or SIGINT, after the server drains"
        : "when it ends (stdio) or on SIGTERM or SIGINT (HTTP)";
  return `## Tracing

\`@use(openTelemetry())\` on the class (\`@toolsmith/otel\`) makes one span per operation, continuing the client's
trace. \`src/tracing.ts\` sets up the OpenTelemetry SDK and sends the spans over OTLP/HTTP to
\`OTEL_EXPORTER_OTLP_ENDPOINT\` (default \`http://localhost:4318\`, a Collector's or Jaeger's), named by
\`OTEL_SERVICE_NAME\` (default the package's name). Spans go in batches; the last ones are sent ${ends}. The tests
load no SDK, so the middleware does nothing there.`;
}

function signInSection({ auth, transport }: ProjectOptions): string {
  const start = transport === "both" ? "npm run start:http" : "npm start";
  const common = `The \`reset\` tool needs the \`${RESET_SCOPE}\` scope (\`scopes\` in \`src/server.ts\`): a token without
it is answered 403 with \`WWW-Authenticate: Bearer error="insufficient_scope"\`, which clients use to ask for more.${
    transport === "both" ? " Over stdio there is no token: the local user holds every scope." : ""
  } The tests in \`src/server.test.ts\` call it in memory as signed-in callers (\`createTestClient\`'s \`auth\`), no
identity provider needed. \`npx toolsmith list ${URL}\` signs in from a terminal.`;
  if (auth === "verify") {
    return `## Sign-in

The HTTP server takes only tokens your identity provider issued for it (\`src/sign-in.ts\`, \`jwtVerifier\` of
\`@toolsmith/auth\`): their signature against the provider's published keys, issuer, audience and expiry.

${fence("sh", `ISSUER=https://login.example.com AUDIENCE=${URL} ${start}`)}

- \`ISSUER\`: your identity provider's issuer URL (its metadata is at \`<ISSUER>/.well-known/openid-configuration\`).
- \`AUDIENCE\`: this server's URL, which the provider puts in the tokens' \`aud\` (RFC 8707 resource indicators).

${common}`;
  }
  return `## Sign-in

The HTTP server is the OAuth authorization server its clients sign in with, in front of one OpenID provider
(\`src/sign-in.ts\`, \`oauthProxy\` and \`oidcUpstream\` of \`@toolsmith/auth\`): clients register (client ID metadata
documents, or dynamic registration), people sign in at the provider and consent here, and the server issues its own
tokens, bound to its URL. Register this server with the provider as a web client whose redirect URI is
\`http://127.0.0.1:3000/oauth/callback\` (the server's origin, then \`/oauth/callback\`), then:

${fence(
  "sh",
  `OIDC_ISSUER=https://login.example.com OIDC_CLIENT_ID=… OIDC_CLIENT_SECRET=… \\
  AUTH_SECRET=$(openssl rand -base64 32) ${start}`,
)}

- \`OIDC_ISSUER\`, \`OIDC_CLIENT_ID\`, \`OIDC_CLIENT_SECRET\`: the provider and this server's registration with it.
- \`AUTH_SECRET\`: 32 bytes or more, the same for every process and kept across restarts; it seals what the server
  keeps (pending sign-ins, codes, refresh tokens, the provider's tokens) on its engine.
- \`PUBLIC_URL\`: the origin clients reach the server at (\`https://mcp.example.com\`), named in the tokens it issues;
  by default each request's own.

${common}`;
}

/** The generated README: what is here, the scripts, and how each host registers the server. */
export function readme(options: ProjectOptions, dir: string): string {
  const { name, transport, runtime } = options;
  const entry = `${dir}/dist/main.js`;
  const stdio = transport !== "http";
  const http = transport !== "stdio";
  const url = localUrl(options);
  const { command, args } = stdioCommand(options, entry);
  const stdioJson = (key: string) => JSON.stringify({ [key]: { [name]: { command, args } } }, null, 2);
  const sections: string[] = [];
  sections.push(`# ${name}

An [MCP](https://modelcontextprotocol.io) server built with Toolsmith: ${
    options.auth === "none" ? "one tool (`greet`)" : "two tools (`greet`, and `reset`, which needs a scope)"
  }, one resource
(\`greetings://history\`) and one prompt (\`welcome\`) in \`src/server.ts\`, written with ${
    options.dialect === "tc39" ? "TC39 standard decorators" : "legacy `experimentalDecorators`"
  }. It serves ${
    transport === "stdio"
      ? "stdio"
      : transport === "http"
        ? `Streamable HTTP at ${url}`
        : `stdio, or Streamable HTTP at ${url} with \`--http\``
  }${runsOn(options)}.

The Toolsmith packages are not published to npm yet: a project made with \`create-toolsmith --from <checkout>\`
installs them from the tarballs in \`toolsmith-packages/\`, which holds every publishable one. Add another by its
tarball, \`npm install ./toolsmith-packages/toolsmith-redis-<version>.tgz\` (or \`pnpm add\`): \`overrides\` in
\`package.json\` (and \`pnpm-workspace.yaml\`) already send it and its own \`@toolsmith/*\` dependencies there.`);
  if (options.redis) sections.push(REDIS);
  if (options.otel) sections.push(tracing(options));
  if (options.auth !== "none") sections.push(signInSection(options));
  if (runtime === "workers") sections.push(...workerSections(options));

  const scripts = ["| script | does |", "|---|---|"];
  if (runtime !== "node") scripts.push(...runtimeScripts(options));
  else {
    scripts.push("| `npm run build` | compile `src` to `dist` |");
    scripts.push("| `npm run dev` | run `src/main.ts` from source (`toolsmith dev`), restarting when a file changes |");
    scripts.push(
      `| \`npm start\` | run \`dist/main.js\`${stdio ? " (stdio: a host normally starts it for you)" : ""} |`,
    );
  }
  if (runtime === "node" && transport === "both") {
    scripts.push("| `npm run dev:http` | the same, serving Streamable HTTP |");
    scripts.push("| `npm run start:http` | serve Streamable HTTP on `PORT` (default 3000) |");
  }
  if (options.tests)
    scripts.push("| `npm test` | the in-memory tests in `src/*.test.ts` (`createTestClient`, both protocol eras) |");
  scripts.push("| `npm run lint` | Biome: lint and format check (`npx biome check --write .` fixes) |");
  scripts.push(
    transport === "http"
      ? "| `npm run inspect` | build, then open the MCP Inspector on the running server (start it first with `npm start`) |"
      : "| `npm run inspect` | build, then open the MCP Inspector on the built server |",
  );
  sections.push(`## Scripts\n\n${scripts.join("\n")}\n\n${runtimeNote(options)}`);

  const config =
    runtime === "node" || !stdio
      ? "`npx toolsmith config <host>` prints the same snippets"
      : `\`npx toolsmith config <host> --command "${[command, ...args.slice(0, -1)].join(" ")}" --args ${entry}\` prints the same snippets`;
  const hosts: string[] = [
    "## Register the server with a host",
    runtime === "workers"
      ? `Start it (\`npm run dev\`) or deploy it; for the deployed Worker, use its \`https://…/mcp\` URL instead. \`npx toolsmith config <host> --url <url>\` prints the same snippets.`
      : `Build first (\`npm run build\`). ${config}.`,
  ];
  if (stdio) {
    hosts.push(
      `### Claude Desktop\n\nIn \`claude_desktop_config.json\` (Settings → Developer → Edit Config), then restart Claude Desktop:\n\n${fence("json", stdioJson("mcpServers"))}`,
    );
    hosts.push(`### Claude Code\n\n${fence("sh", `claude mcp add ${name} -- ${[command, ...args].join(" ")}`)}`);
    hosts.push(
      `### VS Code\n\nIn \`.vscode/mcp.json\` (or run **MCP: Add Server**):\n\n${fence(
        "json",
        JSON.stringify({ servers: { [name]: { type: "stdio", command, args } } }, null, 2),
      )}`,
    );
    hosts.push(
      `### Cursor\n\nIn \`.cursor/mcp.json\` (this project) or \`~/.cursor/mcp.json\` (everywhere):\n\n${fence("json", stdioJson("mcpServers"))}`,
    );
  }
  if (http) {
    const start = transport === "both" ? "npm run start:http" : runtime === "workers" ? "npm run dev" : "npm start";
    const parts = [
      `${stdio ? "### Over HTTP\n\nThe same hosts, over Streamable HTTP" : "Over Streamable HTTP"}: start the server (\`${start}\`), then:`,
      `- Claude Desktop starts local servers over stdio; the \`mcp-remote\` bridge connects it to this URL (a deployed server with a public HTTPS URL can be added under Settings → Connectors instead):\n\n${fence(
        "json",
        JSON.stringify({ mcpServers: { [name]: { command: "npx", args: ["-y", "mcp-remote", url] } } }, null, 2),
      )}`,
      `- Claude Code:\n\n${fence("sh", `claude mcp add --transport http ${name} ${url}`)}`,
      `- VS Code, \`.vscode/mcp.json\`:\n\n${fence("json", JSON.stringify({ servers: { [name]: { type: "http", url } } }, null, 2))}`,
      `- Cursor, \`.cursor/mcp.json\`:\n\n${fence("json", JSON.stringify({ mcpServers: { [name]: { url } } }, null, 2))}`,
    ];
    hosts.push(parts.join("\n\n"));
  }
  sections.push(hosts.join("\n\n"));
  return `${sections.join("\n\n")}\n`;
}
