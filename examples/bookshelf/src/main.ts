import { createServer } from "@toolsmith/core";
import { openApiTools } from "@toolsmith/openapi";
import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { bookshelfApi } from "./api.js";

// The bookshelf API's operations as MCP tools. BOOKSHELF_URL names a running API; without it, the API is started
// here, on a free loopback port. Its OpenAPI document is read from the API itself, and the writes' API key
// (BOOKSHELF_API_KEY, "dev-key" for the one started here) is given to its security scheme, never to the model.
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
const http = process.argv.includes("--http");
const apiKey = process.env.BOOKSHELF_API_KEY ?? "dev-key";
let apiUrl = process.env.BOOKSHELF_URL;
if (apiUrl === undefined) {
  const api = await bookshelfApi(apiKey);
  apiUrl = await api.listen({ port: 0, host: "127.0.0.1" });
  // Only the MCP server keeps this process: the API it started never holds it open.
  api.server.unref();
}
const documentUrl = new URL("openapi.json", apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/`).href;
const answer = await fetch(documentUrl, { signal: AbortSignal.timeout(10_000) });
if (!answer.ok) throw new Error(`the bookshelf API answered ${answer.status} for its document at ${documentUrl}`);
const { tools, document } = await openApiTools({
  document: await answer.text(),
  documentUrl,
  credentials: { apiKey },
  timeoutMs: 10_000,
});
// Over HTTP, REDIS_URL makes this one of many processes sharing Redis, all sealing with TOOLSMITH_STATE_KEY.
const { REDIS_URL, TOOLSMITH_STATE_KEY } = http ? process.env : {};
const server = createServer({
  name: document.title,
  version: document.version,
  ...(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {}),
  ...(TOOLSMITH_STATE_KEY ? { stateKey: TOOLSMITH_STATE_KEY } : {}),
});
for (const tool of tools) server.tool(tool);
if (http) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
