import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { LogEntry } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { mcp, open, raw, serve } from "./routes.test-util.js";

// A route's response body that fails, never ends, or cannot be cancelled: each request still gets its one answer,
// and what failed is logged (each case failed before its fix).

const bytes = (text: string) => new TextEncoder().encode(text);

// A body that sends "partial" and then fails.
const failing = () =>
  new Response(
    new ReadableStream({
      start: (controller) => controller.enqueue(bytes("partial")),
      pull: (controller) => controller.error(new Error("the disk went away")),
    }),
  );

describe("a route's body", () => {
  it("failing midway cuts the connection (no last chunk) and is logged at error, over node:http", async () => {
    const logged: LogEntry[] = [];
    const base = await serve({ "GET /fail": failing }, {}, logged);
    const answer = await raw(Number(base.port), "GET /fail HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n7\r\npartial\r\n$/);
    expect(logged.map((entry) => [entry.level, entry.message.split("\n")[0]])).toEqual([
      ["error", 'Route "GET /fail" failed midway through its body (connection cut): Error: the disk went away'],
    ]);
  });

  it("failing midway is logged by the web-standard handler too", async () => {
    const logged: LogEntry[] = [];
    const handle = createHttpHandler(mcp(logged), { routes: { "GET /fail": failing } });
    const response = await handle(new Request("http://localhost/fail"));
    await expect(response.text()).rejects.toThrow();
    expect(logged.map((entry) => entry.message.split("\n")[0])).toEqual([
      'Route "GET /fail" failed midway through its body (connection cut): Error: the disk went away',
    ]);
    handle.close();
  });

  it("that never ends is not logged as a failure when its client leaves", async () => {
    const logged: LogEntry[] = [];
    let cancelled!: () => void;
    const gone = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const forever = () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(bytes("tick\n")), cancel: () => cancelled() }));
    const base = await serve({ "GET /forever": forever }, {}, logged);
    const req = httpRequest({ host: base.hostname, port: base.port, path: "/forever" });
    req.end();
    const [res] = (await once(req, "response")) as [IncomingMessage];
    await once(res, "data");
    res.on("error", () => undefined);
    req.destroy();
    await gone;
    await open.splice(0)[0]?.close();
    expect(logged).toEqual([]);
  });

  it("whose cancel never settles does not hold a HEAD's answer", async () => {
    const stuck = () =>
      new Response(
        new ReadableStream({ start: (c) => c.enqueue(bytes("A")), cancel: () => new Promise<void>(() => undefined) }),
        { headers: { "x-kind": "stuck" } },
      );
    const base = await serve({ "GET /stuck": stuck });
    const head = await raw(Number(base.port), "HEAD /stuck HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 200 [\s\S]*x-kind: stuck\r\n[\s\S]*\r\n\r\n$/);
    const handle = createHttpHandler(mcp(), { routes: { "GET /stuck": stuck } });
    const response = await handle(new Request("http://localhost/stuck", { method: "HEAD" }));
    expect([response.status, response.headers.get("x-kind")]).toEqual([200, "stuck"]);
    handle.close();
  });

  it("locked by the handler (a reader taken) is a 500, as a read one is", async () => {
    const logged: LogEntry[] = [];
    const locked = () => {
      const response = new Response("x");
      response.body?.getReader();
      return response;
    };
    const base = await serve({ "GET /locked": locked }, {}, logged);
    const answer = await raw(Number(base.port), "GET /locked HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 500 [\s\S]*\r\n\r\nInternal Server Error\n$/);
    expect(logged.map((entry) => entry.level)).toEqual(["error"]);
  });
});
