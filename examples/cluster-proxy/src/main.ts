import { startProxy } from "./round-robin.js";

// node dist/main.js [--port 3000] [--health-interval 2000] [--unhealthy-after 2] <backend URL>...: a round-robin
// proxy in front of the processes of one server, probing each one's /healthz.
const args = process.argv.slice(2);
let port = Number(process.env.PORT ?? 3000);
let healthIntervalMs = 2000;
let unhealthyAfter = 2;
const backends: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--port") port = Number(args[++i]);
  else if (args[i] === "--health-interval") healthIntervalMs = Number(args[++i]);
  else if (args[i] === "--unhealthy-after") unhealthyAfter = Number(args[++i]);
  else backends.push(args[i] as string);
}
const whole = (n: number, min: number) => Number.isInteger(n) && n >= min;
if (backends.length === 0 || !whole(port, 0) || !whole(healthIntervalMs, 1) || !whole(unhealthyAfter, 1)) {
  process.stderr.write(
    "usage: node dist/main.js [--port 3000] [--health-interval 2000] [--unhealthy-after 2] http://127.0.0.1:3001/mcp http://127.0.0.1:3002/mcp …\n",
  );
  process.exit(2);
}
const proxy = await startProxy({
  backends,
  port,
  healthIntervalMs,
  unhealthyAfter,
  onHealth: ({ url, up, reason }) =>
    process.stderr.write(up ? `${url} back in rotation\n` : `${url} out of rotation: ${reason}\n`),
});
process.stderr.write(`round-robin proxy listening on ${proxy.url}, in front of ${backends.join(", ")}\n`);
// Stop cleanly: the probes' timers, then the listener and its connections.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void proxy.close());
