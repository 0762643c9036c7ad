import { createHttpHandler, type HttpHandler } from "@toolsmith/transport-http";
import { ConformanceServer } from "../../conformance-server/src/conformance-server.js";
import { keptAlive } from "../src/keep-alive.js";

// The conformance server's fixtures served from a Worker, for the suite's 2026-07-28 requirement set: all but those a
// Worker cannot serve (node-fixtures.ts: skills read from disk, a raw JSON Schema tool Ajv would compile with eval).

let handler: HttpHandler | undefined;

export default {
  async fetch(request: Request, env: { TOOLSMITH_STATE_KEY: string }): Promise<Response> {
    handler ??= createHttpHandler(new ConformanceServer({ server: { stateKey: env.TOOLSMITH_STATE_KEY } }), {
      handshake: false,
    });
    return keptAlive(await handler(request));
  },
};
