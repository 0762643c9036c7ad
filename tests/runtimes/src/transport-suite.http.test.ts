import { SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { EraName } from "../../transports/src/peer.js";
import { transportSuite } from "../../transports/src/transport-suite.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";
import { type Door, type RuntimeProcess, serveFixtures } from "./spawn-runtime.js";

// The shared transport suite over Streamable HTTP, the fixtures served by Bun and Deno: through the runtime's own
// server (Bun.serve, Deno.serve) with createHttpHandler, and through Toolsmith's node:http `listen` on the
// runtime's node compatibility. Build first. One process per runtime and door serves the three fixtures.
const DOORS: Record<Door, string> = { serve: "createHttpHandler", listen: "listen" };

/** What a runtime and door are known to get wrong, by case key and era (they run as it.fails). */
const KNOWN_FAILURES: Record<string, Readonly<Record<string, readonly EraName[]>>> = {};

for (const name of RUNTIME_NAMES) {
  const target = runtime(name);
  for (const door of Object.keys(DOORS) as Door[]) {
    const label = `${name}: ${door === "serve" ? `${name === "bun" ? "Bun" : "Deno"}.serve` : "listen"}`;
    describe(label, () => {
      let served: RuntimeProcess & { urls: Record<string, string> };
      const own: RuntimeProcess[] = [];
      beforeAll(async () => {
        served = await serveFixtures(target, door);
      });
      afterAll(async () => {
        await Promise.all([served, ...own].map((one) => one?.stop()));
        // Nothing but the line that said where it listens: no warning the servers logged, nothing the runtime said.
        for (const one of [served, ...own]) expect(one?.stderr().replace(/^listening .*\n/, "")).toBe("");
      });

      transportSuite(label, {
        transport: (fixture) => new StreamableHTTPClientTransport(new URL(served.urls[fixture] as string)),
        // A body over maxBodyBytes is 413.
        isOversizeError: (error) => error instanceof SdkHttpError && error.status === 413,
        ...(KNOWN_FAILURES[label] ? { knownFailures: KNOWN_FAILURES[label] } : {}),
        ownServer: async () => {
          const process = await serveFixtures(target, door, { fixtures: ["main"] });
          own.push(process);
          return {
            transport: () => new StreamableHTTPClientTransport(new URL(process.urls.main as string)),
            // SIGTERM: the script closes the fixture (listen streams get their closing result), then exits.
            shutdown: () => process.stop(),
          };
        },
      });
    });
  }
}
