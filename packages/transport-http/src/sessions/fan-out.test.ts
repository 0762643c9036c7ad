import { createServer } from "@toolsmith/core";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, openSession, post } from "../exchange/requests.test-util.js";

// The fan-out of list changes reads who hears them from the engine without restarting anyone's idle time (decision
// 0007): a session still expires per sessionIdleMs however often changes come.

it("a never-initialized session expires per sessionIdleMs while list changes come every 50 ms", async () => {
  // The engine's clock, moved by the test: 50 ms per change, 1.5 s in all, against a 300 ms idle time.
  let now = Date.now();
  const engine = createMemoryEngine({ now: () => now });
  const server = createServer({ name: "fan-out", version: "1", engine });
  server.tool({ name: "t", description: "t", handler: () => "ok" });
  const handle = createHttpHandler(server, { sessionIdleMs: 300 });
  // A session that hears each change (and is used after each, so it stays), and one that never initializes.
  const witness = await openSession(handle);
  const idle = (await handle(post(initialize(), H))).headers.get("mcp-session-id") as string;
  const stream = await handle(get({ accept: "text/event-stream", "mcp-session-id": witness }));
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const heard = () => text.split("notifications/tools/list_changed").length - 1;
  const tool = server.registered("tool", "t");
  for (let change = 1; change <= 30; change++) {
    if (change % 2 === 1) tool?.disable();
    else tool?.enable();
    while (heard() < change) text += decoder.decode((await reader.read()).value, { stream: true });
    const ping = await handle(
      post({ jsonrpc: "2.0", id: change, method: "ping" }, { ...H, "mcp-session-id": witness }),
    );
    expect(ping.status).toBe(200);
    now += 50;
  }
  const expired = await handle(post({ jsonrpc: "2.0", id: 99, method: "ping" }, { ...H, "mcp-session-id": idle }));
  expect(expired.status).toBe(404);
  await reader.cancel();
  handle.close();
});
