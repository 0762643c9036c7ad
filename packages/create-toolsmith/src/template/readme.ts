import type { ProjectOptions } from "../options.js";

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

/** The generated README: what is here, the scripts, and how each host registers the server. */
export function readme(options: ProjectOptions, dir: string): string {
  const { name, transport } = options;
  const entry = `${dir}/dist/main.js`;
  const stdio = transport !== "http";
  const http = transport !== "stdio";
  const stdioJson = (key: string) => JSON.stringify({ [key]: { [name]: { command: "node", args: [entry] } } }, null, 2);
  const sections: string[] = [];
  sections.push(`# ${name}

An [MCP](https://modelcontextprotocol.io) server built with Toolsmith: one tool (\`greet\`), one resource
(\`greetings://history\`) and one prompt (\`welcome\`) in \`src/server.ts\`, written with ${
    options.dialect === "tc39" ? "TC39 standard decorators" : "legacy `experimentalDecorators`"
  }. It serves ${
    transport === "stdio"
      ? "stdio"
      : transport === "http"
        ? `Streamable HTTP at ${URL}`
        : `stdio, or Streamable HTTP at ${URL} with \`--http\``
  }.

The Toolsmith packages are not published to npm yet: a project made with \`create-toolsmith --from <checkout>\`
installs them from the tarballs in \`toolsmith-packages/\`, which holds every publishable one. Add another by its
tarball, \`npm install ./toolsmith-packages/toolsmith-redis-<version>.tgz\` (or \`pnpm add\`): \`overrides\` in
\`package.json\` (and \`pnpm-workspace.yaml\`) already send it and its own \`@toolsmith/*\` dependencies there.`);
  if (options.redis) sections.push(REDIS);
  if (options.otel) sections.push(tracing(options));

  const scripts = [
    "| script | does |",
    "|---|---|",
    "| `npm run build` | compile `src` to `dist` |",
    "| `npm run dev` | run `src/main.ts` from source (`toolsmith dev`), restarting when a file changes |",
    `| \`npm start\` | run \`dist/main.js\`${stdio ? " (stdio: a host normally starts it for you)" : ""} |`,
  ];
  if (transport === "both") {
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
  sections.push(
    `## Scripts\n\n${scripts.join("\n")}\n\nThe Inspector needs Node 22 or later; the server itself runs on Node 20.`,
  );

  const hosts: string[] = [
    "## Register the server with a host",
    "Build first (`npm run build`). `npx toolsmith config <host>` prints the same snippets.",
  ];
  if (stdio) {
    hosts.push(
      `### Claude Desktop\n\nIn \`claude_desktop_config.json\` (Settings → Developer → Edit Config), then restart Claude Desktop:\n\n${fence("json", stdioJson("mcpServers"))}`,
    );
    hosts.push(`### Claude Code\n\n${fence("sh", `claude mcp add ${name} -- node ${entry}`)}`);
    hosts.push(
      `### VS Code\n\nIn \`.vscode/mcp.json\` (or run **MCP: Add Server**):\n\n${fence(
        "json",
        JSON.stringify({ servers: { [name]: { type: "stdio", command: "node", args: [entry] } } }, null, 2),
      )}`,
    );
    hosts.push(
      `### Cursor\n\nIn \`.cursor/mcp.json\` (this project) or \`~/.cursor/mcp.json\` (everywhere):\n\n${fence("json", stdioJson("mcpServers"))}`,
    );
  }
  if (http) {
    const start = transport === "both" ? "npm run start:http" : "npm start";
    const parts = [
      `${stdio ? "### Over HTTP\n\nThe same hosts, over Streamable HTTP" : "Over Streamable HTTP"}: start the server (\`${start}\`), then:`,
      `- Claude Desktop starts local servers over stdio; the \`mcp-remote\` bridge connects it to this URL (a deployed server with a public HTTPS URL can be added under Settings → Connectors instead):\n\n${fence(
        "json",
        JSON.stringify({ mcpServers: { [name]: { command: "npx", args: ["-y", "mcp-remote", URL] } } }, null, 2),
      )}`,
      `- Claude Code:\n\n${fence("sh", `claude mcp add --transport http ${name} ${URL}`)}`,
      `- VS Code, \`.vscode/mcp.json\`:\n\n${fence("json", JSON.stringify({ servers: { [name]: { type: "http", url: URL } } }, null, 2))}`,
      `- Cursor, \`.cursor/mcp.json\`:\n\n${fence("json", JSON.stringify({ mcpServers: { [name]: { url: URL } } }, null, 2))}`,
    ];
    hosts.push(parts.join("\n\n"));
  }
  sections.push(hosts.join("\n\n"));
  return `${sections.join("\n\n")}\n`;
}
