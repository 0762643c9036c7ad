import { createHttpHandler, type HttpHandler } from "@toolsmith/transport-http";
import { createQuickstartServer } from "./server.js";

/** What the host hands `fetch` beside the request (a Worker's bindings): a shared stateKey, when one is set. */
export interface WorkerEnv {
  readonly TOOLSMITH_STATE_KEY?: string;
}

// Made on the first request, which brings the Worker's bindings (its stateKey).
let handler: HttpHandler | undefined;

/**
 * The quickstart as a web-standard module (a Worker's `export default { fetch }`): the 2026-07-28 era served
 * statelessly, the handshake era from this instance's memory. `scripts/web-bundle.test.ts` bundles it for a web
 * target, `bench/bundle.mjs` weighs it.
 */
export default {
  fetch(request: Request, env: WorkerEnv = {}): Promise<Response> {
    handler ??= createHttpHandler(
      createQuickstartServer(env.TOOLSMITH_STATE_KEY ? { stateKey: env.TOOLSMITH_STATE_KEY } : {}),
    );
    return handler(request);
  },
};
