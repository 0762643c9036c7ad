import { createServer } from "@toolsmith/core";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { expect, it } from "vitest";
import { z } from "zod";
import { partialEngine } from "../../../core/src/engine/roles.test-util.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { events, get, H, openSession, post, URL_ } from "../exchange/requests.test-util.js";

// The HTTP transport names only the engine roles it uses: handshake-era sessions run on an engine that plays the four
// session roles (and EngineLifecycle), and no member of another role is called: a session that never wrote to its
// store (`ctx.store.session`) costs the record store nothing as it ends.

it("serves sessions, their streams, leases and list changes on an engine of the four session roles, and ends one with no other", async () => {
  const memory = createMemoryEngine();
  const { engine, refused } = partialEngine(memory, ["SessionStore", "EventLog", "SessionChannel", "RequestLeases"]);
  const server = createServer({ name: "roles", version: "1", engine });
  server.tool({
    name: "count",
    description: "Counts, telling its progress",
    input: { to: z.number() },
    handler: async ({ to }, ctx) => {
      for (let n = 1; n <= to; n++) {
        ctx.progress(n, to);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return String(to);
    },
  });
  const handle = createHttpHandler(server);
  const session = await openSession(handle);
  const headers = { ...H, "mcp-session-id": session };
  const stream = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
  expect(stream.status).toBe(200);
  // Progress first: the reply is a stream, kept in the event log under the request's lease.
  const call = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "count", arguments: { to: 2 }, _meta: { progressToken: "p" } },
  };
  const counted = await handle(post(call, headers));
  expect(counted.headers.get("content-type")).toBe("text/event-stream");
  expect((await events(counted)).at(-1)).toMatchObject({ id: 2, result: { content: [{ text: "2" }] } });
  // A list change goes to the session's GET stream.
  server.registered("tool", "count")?.disable();
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("notifications/tools/list_changed"))
    text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  expect((await handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": session } }))).status).toBe(
    204,
  );
  // The engine deletes a session's records as it ends it (those written with `session`): nothing is asked of its
  // RecordStore for a session that has none.
  expect(refused).toEqual([]);
  handle.close();
  memory.close();
});
