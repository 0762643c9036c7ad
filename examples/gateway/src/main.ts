import { createServer } from "@toolsmith/core";
import { createRemote, type RemoteEra } from "@toolsmith/remote";
import { listen } from "@toolsmith/transport-http";

// node dist/main.js [--http] [--audit] [--era auto|legacy|2026-07-28] <remote URL>: a gateway serving the remote's
// tools, prompts, resources and completions as its own (unprefixed) over Streamable HTTP at
// http://127.0.0.1:$PORT/mcp (default 3000), said on stderr.
const args = process.argv.slice(2).filter((arg) => arg !== "--http" && arg !== "--audit");
const ERAS: Record<string, RemoteEra> = { auto: "auto", legacy: "legacy", "2026-07-28": { pin: "2026-07-28" } };
const eraAt = args.indexOf("--era");
const era = eraAt === -1 ? ERAS.auto : ERAS[args[eraAt + 1] ?? ""];
const remoteUrl = args.filter((_, i) => eraAt === -1 || (i !== eraAt && i !== eraAt + 1))[0];
if (!era || !remoteUrl || !URL.canParse(remoteUrl)) {
  process.stderr.write(
    "usage: node dist/main.js [--http] [--audit] [--era auto|legacy|2026-07-28] http://127.0.0.1:3001/mcp\n",
  );
  process.exit(2);
}

const gateway = createServer({ name: "gateway", version: "1.0.0" });
// The gateway's own middleware runs in front of every remote item as in front of a local one: with --audit, one
// line on stderr per call, read or get, with how long the remote took.
if (process.argv.includes("--audit")) {
  gateway.use(async (operation, next) => {
    const started = performance.now();
    try {
      return await next();
    } finally {
      const what = operation.name ?? operation.uri ?? "";
      process.stderr.write(`${operation.method} ${what} ${(performance.now() - started).toFixed(1)} ms\n`);
    }
  });
}
const remote = await createRemote({ url: remoteUrl, era, into: gateway });
const http = await listen(gateway);
process.stderr.write(`gateway in front of ${remoteUrl}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void Promise.all([http.close(), remote.close()]));
}
