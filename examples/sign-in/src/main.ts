import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { createNotesServer } from "./notes.js";
import { signIn } from "./sign-in.js";

// Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000; HOST to listen elsewhere). How people sign in is
// src/sign-in.ts's, chosen by environment variables; --dev without an upstream starts a local OpenID provider.
// REDIS_URL keeps the sign-in state (sealed) on Redis, shared by every process of the server.
const development = process.argv.includes("--dev");
const { REDIS_URL, HOST } = process.env;
const server = createNotesServer(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {});
const auth = await signIn(server, process.env, development);
const http = await listen(server, {
  ...(HOST ? { host: HOST } : {}),
  authenticate: auth.authenticate,
  resourceMetadata: auth.resourceMetadata,
  ...(auth.routes ? { routes: auth.routes } : {}),
  ...(auth.allowedHosts ? { allowedHosts: auth.allowedHosts } : {}),
  log: null,
});
await auth.serving(http.url);
// Said once the sign-in is ready, so whoever waits for this line can sign in at once.
process.stderr.write(
  `MCP server (Streamable HTTP) listening on ${http.url}\nsign-in ${auth.describe}\n` +
    `try it: npx @modelcontextprotocol/inspector (Streamable HTTP, ${http.url}), or toolsmith list --url ${http.url}\n`,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all([http.close(), auth.close()]).then(() => process.exit(0));
  });
}
