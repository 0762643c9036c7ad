import { createHttpHandler, type HttpHandler } from "@toolsmith/transport-http";
import { keptAlive } from "./keep-alive.js";
import { createWorkerServer } from "./server.js";

/** The Worker's bindings: its secret and its vars (wrangler.jsonc, `npx wrangler secret put`). */
export interface Env {
  /** At least 16 bytes: seals requestState, so a round begun in one isolate ends in any other. */
  TOOLSMITH_STATE_KEY?: string;
  /** The `Host` values clients reach the Worker by, comma-separated (its workers.dev name, its routes). */
  ALLOWED_HOSTS?: string;
}

const NO_KEY =
  "TOOLSMITH_STATE_KEY is not set, or is shorter than 16 bytes: every isolate would seal input_required rounds with a key of its own. Set it with `npx wrangler secret put TOOLSMITH_STATE_KEY` (locally: .dev.vars)\n";

// A key the server takes: 16 bytes or more (a shorter one makes createServer throw, on every request).
const usable = (key: string | undefined): key is string =>
  key !== undefined && new TextEncoder().encode(key).length >= 16;

// One handler per isolate, made on its first request: the secret comes with it (`env`).
let handler: HttpHandler | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (handler === undefined) {
      const stateKey = env.TOOLSMITH_STATE_KEY;
      if (!usable(stateKey)) return new Response(NO_KEY, { status: 500, headers: { "content-type": "text/plain" } });
      const hosts = (env.ALLOWED_HOSTS ?? "").split(",").flatMap((host) => (host.trim() ? [host.trim()] : []));
      handler = createHttpHandler(createWorkerServer({ stateKey }), {
        // None listed: loopback names only (`wrangler dev`, the tests), as the transport's default.
        ...(hosts.length > 0 ? { allowedHosts: hosts } : {}),
        // An isolate cannot keep a session another isolate would find: 2026-07-28 only.
        handshake: false,
      });
    }
    return keptAlive(await handler(request));
  },
};
