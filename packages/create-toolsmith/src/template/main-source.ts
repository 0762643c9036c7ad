import { className } from "../names.js";
import type { ProjectOptions } from "../options.js";

const SIGNALS = 'for (const signal of ["SIGTERM", "SIGINT"]) {';

/** `src/main.ts`: serve the class over the chosen transport, with the Redis engine and tracing when asked for. */
export function mainSource(options: ProjectOptions): string {
  const server = className(options.name);
  const { transport, redis, otel, auth } = options;
  const imports = [
    ...(redis ? ['import { createRedisEngine } from "@toolsmith/redis";'] : []),
    ...(transport !== "stdio" ? ['import { listen } from "@toolsmith/transport-http";'] : []),
    ...(transport === "both" ? ['import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";'] : []),
    ...(transport === "stdio" ? ['import { serveStdio } from "@toolsmith/transport-stdio";'] : []),
    `import { ${server} } from "./server.js";`,
    ...(auth !== "none" ? ['import { signIn } from "./sign-in.js";'] : []),
    ...(otel ? ['import { shutdownTracing } from "./tracing.js";'] : []),
  ];
  // Sign-in (src/sign-in.ts): what listen is given so that callers sign in.
  const listenCall = auth === "none" ? "listen(server)" : `listen(server, signIn(${auth === "proxy" ? "server" : ""}))`;
  const lines = ["#!/usr/bin/env node", ...imports, ""];
  if (redis) {
    lines.push(
      "// REDIS_URL set: sessions, tasks and subscriptions live in Redis, so several processes can serve one server.",
      "const { REDIS_URL } = process.env;",
      `const server = new ${server}(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {});`,
    );
  } else lines.push(`const server = new ${server}();`);
  const url = "Streamable HTTP at http://127.0.0.1:$PORT/mcp (PORT defaults to 3000), said on stderr";
  if (transport === "stdio") {
    lines.push("// stdio: a host starts this process and speaks JSON-RPC on stdin/stdout (log to stderr only).");
    lines.push(...(otel ? stdioTraced("") : ["serveStdio(server);"]));
  } else if (transport === "http") {
    lines.push(`// ${url}.`);
    lines.push(...(otel ? httpTraced("", listenCall) : [`await ${listenCall};`]));
  } else {
    lines.push(`// --http: ${url}; else stdio.`);
    lines.push('if (process.argv.includes("--http")) {', "  releaseStdout();");
    lines.push(...(otel ? httpTraced("  ", listenCall) : [`  await ${listenCall};`]));
    lines.push("} else {");
    lines.push(...(otel ? stdioTraced("  ") : ["  serveStdio(server);"]));
    lines.push("}");
  }
  return `${lines.join("\n")}\n`;
}

// Spans go out in batches: the process sends the last ones (shutdownTracing) before it ends.
function stdioTraced(indent: string): string[] {
  return [
    "// Spans go out in batches: the last once stdin ends (or a signal comes) and every reply is written.",
    "const connection = serveStdio(server, { exitOnEnd: false });",
    SIGNALS,
    "  process.once(signal, () => connection.close());",
    "}",
    "await connection.closed;",
    "await shutdownTracing();",
    "process.exit(0);",
  ].map((line) => indent + line);
}

function httpTraced(indent: string, listenCall: string): string[] {
  return [
    `const http = await ${listenCall};`,
    "// Spans go out in batches: on a signal, the server drains, then the last ones go.",
    SIGNALS,
    "  process.once(signal, async () => {",
    "    await http.close();",
    "    await shutdownTracing();",
    "    process.exit(0);",
    "  });",
    "}",
  ].map((line) => indent + line);
}
