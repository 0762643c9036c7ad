import { afterEach, describe, expect, it, vi } from "vitest";
import { keptAlive } from "./keep-alive.js";

// The keep-alive's timer lives exactly as long as the event stream it writes into.

afterEach(() => {
  vi.useRealTimers();
});

function sse(source: UnderlyingDefaultSource<Uint8Array>): Response {
  return new Response(new ReadableStream(source), { headers: { "content-type": "text/event-stream" } });
}

describe("keptAlive", () => {
  it("stops writing once the stream it wraps fails (a client that read too slowly), and never throws", async () => {
    vi.useFakeTimers();
    let fail: (error: Error) => void = () => {};
    const reader = keptAlive(
      sse({
        start(controller) {
          fail = (error) => controller.error(error);
        },
      }),
      1000,
    ).body?.getReader();
    const read = reader?.read();
    fail(new Error("the client read too slowly"));
    await expect(read).rejects.toThrow("the client read too slowly");
    expect(vi.getTimerCount()).toBe(0);
    expect(() => vi.advanceTimersByTime(5000)).not.toThrow();
  });

  it("writes a comment between events while open, and stops when the stream ends", async () => {
    vi.useFakeTimers();
    let end = () => {};
    const reader = keptAlive(
      sse({
        start(controller) {
          end = () => controller.close();
        },
      }),
      1000,
    ).body?.getReader();
    vi.advanceTimersByTime(1000);
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe(": keep-alive\n\n");
    end();
    expect(await reader?.read()).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });
});
