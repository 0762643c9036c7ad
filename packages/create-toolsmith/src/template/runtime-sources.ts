import { randomBytes } from "node:crypto";
import { className } from "../names.js";
import type { ProjectOptions } from "../options.js";
import { formatJson as json } from "./json.js";

// The entry points of the Bun, Deno and Workers projects: the web-standard handler (createHttpHandler) served by the
// runtime's own server, and stdio through @toolsmith/transport-stdio where the runtime has a stdin.

const SAID = "MCP server (Streamable HTTP) listening on";

/** `src/main.ts` of a Bun project: `Bun.serve` with the handler, or stdio. */
export function bunMain(options: ProjectOptions): string {
  const server = className(options.name);
  const { transport } = options;
  const lines = ["#!/usr/bin/env bun"];
  if (transport !== "stdio") lines.push('import { createHttpHandler } from "@toolsmith/transport-http";');
  if (transport === "both") lines.push('import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";');
  if (transport === "stdio") lines.push('import { serveStdio } from "@toolsmith/transport-stdio";');
  lines.push(`import { ${server} } from "./server.js";`, "", `const server = new ${server}();`);
  const http = (indent: string) =>
    [
      "const handler = createHttpHandler(server);",
      'const http = Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT ?? 3000), fetch: handler });',
      `process.stderr.write(\`${SAID} \${new URL("/mcp", http.url)}\\n\`);`,
      "// On a signal: sessions and streams end, requests in flight are answered, then the process exits.",
      'for (const signal of ["SIGTERM", "SIGINT"] as const) {',
      "  process.once(signal, async () => {",
      "    handler.close();",
      "    await http.stop();",
      "    process.exit(0);",
      "  });",
      "}",
    ].map((line) => indent + line);
  const url = "Streamable HTTP at http://127.0.0.1:$PORT/mcp (PORT defaults to 3000), said on stderr";
  if (transport === "stdio") {
    lines.push("// stdio: a host starts this process and speaks JSON-RPC on stdin/stdout (log to stderr only).");
    lines.push("serveStdio(server);");
  } else if (transport === "http") {
    lines.push(`// ${url}.`, ...http(""));
  } else {
    lines.push(`// --http: ${url}; else stdio.`, 'if (process.argv.includes("--http")) {', "  releaseStdout();");
    lines.push(...http("  "), "} else {", "  serveStdio(server);", "}");
  }
  return `${lines.join("\n")}\n`;
}

/** What `deno run` is allowed: the network (to serve) and the environment (PORT; Toolsmith's own settings). */
export const DENO_PERMISSIONS = ["--allow-net", "--allow-env"];

/** `src/main.ts` of a Deno project: `Deno.serve` with the handler, or stdio. */
export function denoMain(options: ProjectOptions): string {
  const server = className(options.name);
  const { transport } = options;
  const lines: string[] = [];
  if (transport !== "stdio") lines.push('import { createHttpHandler } from "@toolsmith/transport-http";');
  if (transport === "both") lines.push('import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";');
  if (transport === "stdio") lines.push('import { serveStdio } from "@toolsmith/transport-stdio";');
  lines.push(`import { ${server} } from "./server.js";`, "", `const server = new ${server}();`);
  const http = (indent: string) =>
    [
      "const handler = createHttpHandler(server);",
      "const http = Deno.serve(",
      "  {",
      '    hostname: "127.0.0.1",',
      '    port: Number(Deno.env.get("PORT") ?? 3000),',
      `    onListen: ({ port }) => console.error(\`${SAID} http://127.0.0.1:\${port}/mcp\`),`,
      "  },",
      "  handler,",
      ");",
      "// On a signal: sessions and streams end, requests in flight are answered, then the process exits.",
      'for (const signal of ["SIGTERM", "SIGINT"] as const) {',
      "  Deno.addSignalListener(signal, async () => {",
      "    handler.close();",
      "    await http.shutdown();",
      "    Deno.exit(0);",
      "  });",
      "}",
    ].map((line) => indent + line);
  const url = "Streamable HTTP at http://127.0.0.1:$PORT/mcp (PORT defaults to 3000), said on stderr";
  if (transport === "stdio") {
    lines.push("// stdio: a host starts this process and speaks JSON-RPC on stdin/stdout (log to stderr only).");
    lines.push("serveStdio(server);");
  } else if (transport === "http") {
    lines.push(`// ${url}.`, ...http(""));
  } else {
    lines.push(`// --http: ${url}; else stdio.`, 'if (Deno.args.includes("--http")) {', "  releaseStdout();");
    lines.push(...http("  "), "} else {", "  serveStdio(server);", "}");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * `src/deno.d.ts`: the few `Deno` APIs `src/main.ts` uses, for tsc (Deno's own declarations are not on npm; `deno
 * check` knows them all).
 */
export function denoTypes(): string {
  return `// The Deno APIs src/main.ts uses, declared for tsc; Deno itself knows them all (\`deno check src/main.ts\`).
declare namespace Deno {
  interface ServeOptions {
    hostname?: string;
    port?: number;
    onListen?: (address: { port: number }) => void;
  }
  interface HttpServer {
    shutdown(): Promise<void>;
  }
  function serve(options: ServeOptions, handler: (request: Request) => Response | Promise<Response>): HttpServer;
  function addSignalListener(signal: "SIGTERM" | "SIGINT", handler: () => void): void;
  function exit(code?: number): never;
  const args: string[];
  const env: { get(name: string): string | undefined };
}
`;
}

/** `deno.json`: packages come from node_modules, which npm (or pnpm) installs from package.json. */
export function denoJson(): string {
  return json({ nodeModulesDir: "manual", lock: false });
}

/** `src/worker.ts`: a module Worker whose fetch handler serves the class, its state key a secret. */
export function workerSource(options: ProjectOptions): string {
  const server = className(options.name);
  return `import { createHttpHandler, type HttpHandler } from "@toolsmith/transport-http";
import { ${server} } from "./server.js";

/** What the Worker is given (wrangler.jsonc, and secrets: \`.dev.vars\` under wrangler dev). */
interface Env {
  /** Seals 2026-07-28 requestState and cursors: the same in every isolate, so any of them can take the next round. */
  STATE_KEY?: string;
  /** The Host names clients reach the Worker by, comma-separated (\`${options.name}.<you>.workers.dev\`); default loopback. */
  ALLOWED_HOSTS?: string;
}

// One server per isolate, made on the first request (the secrets come with it).
let handle: HttpHandler | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    // 16 bytes or more: a shorter key would make the server throw on every request.
    if (!env.STATE_KEY || new TextEncoder().encode(env.STATE_KEY).length < 16) {
      return new Response(
        "STATE_KEY is not set, or is shorter than 16 bytes: see README.md (wrangler secret put STATE_KEY)\\n",
        { status: 500 },
      );
    }
    const allowedHosts = env.ALLOWED_HOSTS?.split(",")
      .map((host) => host.trim())
      .filter(Boolean);
    handle ??= createHttpHandler(new ${server}({ stateKey: env.STATE_KEY }), {
      ...(allowedHosts?.length ? { allowedHosts } : {}),
      // An isolate cannot keep a session another isolate would find: 2026-07-28 alone, initialize told so (400).
      handshake: false,
    });
    return handle(request);
  },
};
`;
}

/** The Worker's compatibility date: one the workerd that wrangler brings knows. */
export const COMPATIBILITY_DATE = "2026-11-01";

/** `wrangler.jsonc`: the built Worker (tsc's dist/worker.js, which wrangler bundles), no secret in it. */
export function wranglerJsonc(options: ProjectOptions): string {
  const config = json({
    $schema: "node_modules/wrangler/config-schema.json",
    name: workerName(options.name),
    main: "dist/worker.js",
    compatibility_date: COMPATIBILITY_DATE,
    vars: { ALLOWED_HOSTS: "" },
  });
  return `// STATE_KEY is a secret: in .dev.vars for wrangler dev, \`npx wrangler secret put STATE_KEY\` for the deployed Worker.
// No nodejs_compat: wrangler bundles @toolsmith/transport-http's web entry (the workerd condition), which has no node:*.
${config}`;
}

/** A Worker's name: lower-case letters, digits and dashes. */
export function workerName(name: string): string {
  return name.replace(/^@[^/]+\//, "").replace(/[^a-z0-9-]+/g, "-");
}

/** `.dev.vars`: the secrets wrangler dev gives the Worker (git-ignored); a fresh key per project. */
export function devVars(): string {
  return `STATE_KEY=${randomBytes(32).toString("base64url")}\n`;
}
