import { createServer } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { errorMessage, get, headers2026, META, openSession, post } from "../exchange/requests.test-util.js";

// Long-lived streams (a session's GET stream, a 2026-07-28 listen stream) share one bound; per caller: caller-limits.

describe("long-lived streams", () => {
  it("a GET stream and a listen stream share maxStreams: 503 past it; closing one frees its place", async () => {
    const handle = createHttpHandler(createServer({ name: "streams", version: "1" }), { maxStreams: 1 });
    const session = await openSession(handle);
    const first = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(first.status).toBe(200);
    const listen = () =>
      handle(
        post(
          { jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: { _meta: META, notifications: {} } },
          headers2026("subscriptions/listen"),
        ),
      );
    const refused = await listen();
    expect(refused.status).toBe(503);
    expect(await errorMessage(refused)).toBe("Too many open streams; try again later");
    await first.body?.cancel();
    const listening = await listen();
    expect(listening.status).toBe(200);
    expect(listening.headers.get("content-type")).toBe("text/event-stream");
    await listening.body?.cancel();
  });
});
