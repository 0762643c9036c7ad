import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createServer } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { H, initialize, post } from "../exchange/requests.test-util.js";

// Issue 24, item 3 in a process's memory: a live session kept its last request whole (the body, its parsed params,
// its _meta: up to maxBodyBytes each) as the caller it tells of changes, and each subscription kept its request's.
// One anonymous caller's sessions could hold gigabytes. Measured on the heap after a full collection.

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function heapAfterCollection(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const SESSIONS = 20;
const PAD = 1024 * 1024;

describe("what a live session keeps of its requests", () => {
  it("nothing of a request's body, params or _meta once it is answered (ping, subscribe, initialize)", async () => {
    const server = createServer({ name: "retention", version: "1" });
    server.resource({ uri: "note://one", handler: () => "one" });
    const handle = createHttpHandler(server);
    const padding = (n: number) => `${n}`.padEnd(PAD, "m");
    const baseline = heapAfterCollection();
    for (let n = 0; n < SESSIONS; n++) {
      const opened = await handle(
        post(
          {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { ...initialize().params, _meta: { junk: padding(n) } },
          },
          H,
        ),
      );
      await opened.text();
      const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
      await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
      const ping = await handle(
        post(
          { jsonrpc: "2.0", id: 2, method: "ping", params: { junk: padding(n), _meta: { junk: padding(n) } } },
          headers,
        ),
      );
      expect(ping.status).toBe(200);
      await ping.text();
      const subscribe = await handle(
        post(
          {
            jsonrpc: "2.0",
            id: 3,
            method: "resources/subscribe",
            params: { uri: "note://one", _meta: { junk: padding(n) } },
          },
          headers,
        ),
      );
      expect(subscribe.status).toBe(200);
      await subscribe.text();
    }
    expect(handle.sessions).toBe(SESSIONS);
    // Each request carried 2-3 MiB; a session's own state is a few KiB.
    const grown = heapAfterCollection() - baseline;
    expect(grown).toBeLessThan((SESSIONS * PAD) / 4);
    await handle.close();
  });
});
