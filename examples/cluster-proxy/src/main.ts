import { startProxy } from "./round-robin.js";

// node dist/main.js [--port 3000] <backend URL>...: a round-robin proxy in front of the processes of one server.
const args = process.argv.slice(2);
let port = Number(process.env.PORT ?? 3000);
const backends: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--port") port = Number(args[++i]);
  else backends.push(args[i] as string);
}
if (backends.length === 0 || !Number.isInteger(port)) {
  process.stderr.write(
    "usage: node dist/main.js [--port 3000] http://127.0.0.1:3001/mcp http://127.0.0.1:3002/mcp …\n",
  );
  process.exit(2);
}
const proxy = await startProxy({ backends, port });
process.stderr.write(`round-robin proxy listening on ${proxy.url}, in front of ${backends.join(", ")}\n`);
