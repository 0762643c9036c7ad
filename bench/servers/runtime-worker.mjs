import { createServer } from "@toolsmith/core";
// The built package, by path, as the other bench servers import it (no new dependency of the bench).
import { createHttpHandler } from "../../packages/transport-http/dist/index.js";
import { withAddTool } from "./http-toolsmith-parts.mjs";

// The Worker of bench/runtimes.mjs: a module Worker whose `fetch` is createHttpHandler over the one-tool server,
// bundled by esbuild and run under workerd (through miniflare). It serves the 2026-07-28 era only: a Worker keeps
// no session across isolates. The handler is made on the first request, not at load: its engine draws random
// bytes when made, and workerd refuses random values in a Worker's global scope.
let handle;

export default {
  fetch(request) {
    handle ??= createHttpHandler(withAddTool(createServer({ name: "bench-toolsmith", version: "1.0.0" })));
    return handle(request);
  },
};
