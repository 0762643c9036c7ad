import { createServer } from "@toolsmith/core";
import { describe, expect, it, vi } from "vitest";
import { errorMessage, H, headers2026, META, openSession, post, URL_ } from "../exchange/requests.test-util.js";
import { createHttpHandler } from "./http-handler.js";

// The web-standard front door: a fetch Request in, a Response out. What the dispatcher decides is tested with its parts.

function server() {
  const s = createServer({ name: "web", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return s;
}

const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
const handler = (maxBodyBytes?: number) =>
  createHttpHandler(server(), maxBodyBytes === undefined ? {} : { maxBodyBytes });

describe("createHttpHandler", () => {
  it("a Request without a Host header is judged by the host its URL addresses", async () => {
    const handle = handler();
    const to = (url: string) =>
      handle(new Request(url, { method: "POST", headers: headers2026("tools/list"), body: JSON.stringify(LIST) }));
    expect((await to(URL_)).status).toBe(200);
    expect((await to("http://evil.example/mcp")).status).toBe(403);
  });

  // Bun makes request.url of the Host header: of one no URL can hold (empty, with a user) it gives the path alone.
  it("a Request whose url is a path alone is refused for its Host as Node's door refuses it, not thrown on", async () => {
    const handle = handler();
    const failed = vi.fn();
    handle.dispatcher.failed = failed;
    const bunLike = (host: string | null) => {
      const headers = new Headers(headers2026("tools/list"));
      if (host !== null) headers.set("host", host);
      const request = new Request(URL_, { method: "POST", headers, body: JSON.stringify(LIST) });
      return handle(Object.defineProperty(request, "url", { value: "/mcp" }));
    };
    for (const host of ["", "evil@127.0.0.1:3000", null]) {
      const refused = await bunLike(host);
      expect(refused.status).toBe(403);
      expect(await errorMessage(refused)).toMatch(/^Host not allowed: /);
    }
    expect(failed).not.toHaveBeenCalled();
  });

  // A client gone mid-body (Bun: "The connection was closed", Deno: BadResource, node:http: "aborted") is no bug:
  // answered 400, not thrown, and the server's log (its onError hook too) is not told, once per such client.
  it("a body whose client went away before its end is answered 400, and the log hears nothing", async () => {
    const logged = vi.fn();
    const s = server();
    s.setLogger(logged);
    const handle = createHttpHandler(s);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
        controller.error(new Error("The connection was closed."));
      },
    });
    const init = { method: "POST", headers: headers2026("tools/list"), body, duplex: "half" };
    const response = await handle(new Request(URL_, init as RequestInit));
    expect(response.status).toBe(400);
    expect(await errorMessage(response)).toMatch(/body/);
    expect(logged).not.toHaveBeenCalled();
  });

  it("a streamed body is read up to maxBodyBytes: past it, 413", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(600));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const refused = await handler(1000)(
      new Request(URL_, { method: "POST", headers: headers2026("tools/list"), body, duplex: "half" } as RequestInit),
    );
    expect(refused.status).toBe(413);
    expect(await errorMessage(refused)).toBe("Request body over 1000 bytes");
  });

  it("is made with no random value and no timer, which a Worker forbids outside a request", async () => {
    const forbidden = [
      vi.spyOn(crypto, "randomUUID"),
      vi.spyOn(crypto, "getRandomValues"),
      vi.spyOn(globalThis, "setTimeout"),
      vi.spyOn(globalThis, "setInterval"),
    ];
    let handle: ReturnType<typeof createHttpHandler>;
    try {
      // A Worker module's global scope: `export default { fetch: createHttpHandler(server) }`.
      handle = createHttpHandler(server());
      for (const spy of forbidden) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of forbidden) spy.mockRestore();
    }
    // Serving a request may make both.
    expect((await handle(post(LIST, headers2026("tools/list")))).status).toBe(200);
  });

  it("sessions counts the open sessions; close() ends them all", async () => {
    const made = server();
    const handle = createHttpHandler(made);
    const session = await openSession(handle);
    await openSession(handle);
    expect(handle.sessions).toBe(2);
    handle.close();
    expect(handle.sessions).toBe(0);
    expect(await made.engine.loadSession(session)).toBeUndefined();
    // Closing, the handler serves nothing more (closing.test.ts): 503, to retry on another process.
    const after = await handle(
      post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { ...H, "mcp-session-id": session }),
    );
    expect(after.status).toBe(503);
  });
});
