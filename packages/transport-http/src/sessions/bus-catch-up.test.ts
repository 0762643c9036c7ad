import { createServer } from "@toolsmith/core";
import { createMemoryEngine, type Engine, type SessionSignal } from "@toolsmith/core/engine";
import { expect, it } from "vitest";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post } from "../exchange/requests.test-util.js";

// A shared engine's bus is at most once (a signal published while a process reconnects to it is lost there): an
// open GET stream still gets what its session kept, at the next touch of the stream's session.
const IDLE_MS = 400;
// The touch comes every half of IDLE_MS; this only names a hang.
const CAUGHT_UP_WITHIN_MS = 20_000;

/** A memory engine whose bus loses the next event signal while `lose.next` is set. */
function losingEngine(lose: { next: boolean }): Engine {
  const inner = createMemoryEngine();
  return new Proxy(inner, {
    get(target, property) {
      if (property === "follow") {
        return (session: string, listener: (signal: SessionSignal) => void) =>
          target.follow(session, (signal) => {
            if (signal.type === "event" && signal.event.data !== "" && lose.next) {
              lose.next = false;
              return;
            }
            listener(signal);
          });
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

it("an event whose signal was lost reaches the open GET stream at the next touch of its session", async () => {
  const lose = { next: false };
  const server = createServer({ name: "catch-up", version: "1", engine: losingEngine(lose) });
  server.resource({ uri: "note://one", handler: () => "one" });
  const handle = createHttpHandler(server, { sessionIdleMs: IDLE_MS });
  try {
    const opened = await handle(post(initialize(), H));
    const session = opened.headers.get("mcp-session-id") as string;
    const headers = { ...H, "mcp-session-id": session };
    await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    await handle(
      post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "note://one" } }, headers),
    );
    const stream = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    lose.next = true;
    server.resourceUpdated("note://one");
    // Reads until `count` updates came (or the stream ended).
    const updates = async (count: number) => {
      while ((text.match(/resources\/updated/g) ?? []).length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      return text;
    };
    expect(await within(updates(1), "the lost update on the GET stream", CAUGHT_UP_WITHIN_MS)).toMatch(
      /id: \S+\ndata: \{"jsonrpc":"2.0","method":"notifications\/resources\/updated"/,
    );
    expect(lose.next).toBe(false); // it was lost on the bus
    // Once: a later touch writes nothing again.
    server.resourceUpdated("note://one");
    await within(updates(2), "the next update");
    await reader.cancel();
    expect(text.match(/resources\/updated/g)).toHaveLength(2);
  } finally {
    handle.close();
  }
}, 60_000);
