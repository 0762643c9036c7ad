import { createServer } from "@toolsmith/core";
// The built package, by path, as the other bench servers import it (no new dependency of the bench).
import { createHttpHandler } from "../../packages/transport-http/dist/index.js";
import { withAddTool } from "./http-toolsmith-parts.mjs";

// The web-standard door on each runtime's own server, for bench/runtimes.mjs: `Bun.serve` under Bun, `Deno.serve`
// under Deno, and under Node a lean node:http adapter (a Request built from the request, the Response written
// back). Port from `--port N` (0 picks a free one); the URL is said on stdout.
const handle = createHttpHandler(withAddTool(createServer({ name: "bench-toolsmith", version: "1.0.0" })));
const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const at = args.indexOf("--port");
const port = at >= 0 ? Number(args[at + 1]) : 0;
const say = (url) => {
  const line = new TextEncoder().encode(`listening on ${url}/mcp\n`);
  if (globalThis.Deno) Deno.stdout.writeSync(line);
  else process.stdout.write(line);
};

if (globalThis.Bun) {
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: handle });
  say(`http://127.0.0.1:${server.port}`);
} else if (globalThis.Deno) {
  Deno.serve({ hostname: "127.0.0.1", port, onListen: ({ port: bound }) => say(`http://127.0.0.1:${bound}`) }, handle);
} else {
  const { serveOnNode } = await import("./runtime-node-adapter.mjs");
  say(await serveOnNode(handle, port));
}
