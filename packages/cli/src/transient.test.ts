import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryAfterMs, Unavailable, unavailableAware } from "./transient.js";

// A real HTTP server standing in for a proxy: it answers each POST with what the test set.
let answer: { status: number; headers: Record<string, string>; body: string };
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume().on("end", () => {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function failure(): Promise<Unavailable> {
  const error = await unavailableAware()(url, { method: "POST", body: "{}" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Unavailable);
  return error as Unavailable;
}

describe("unavailableAware", () => {
  it("shows what a 503's body said escaped: a proxy cannot drive the terminal the error is printed on", async () => {
    answer = { status: 503, headers: {}, body: "\x1b[2J\x1b]0;owned\x07down\r\nnext" };
    expect((await failure()).message).toBe(
      "HTTP 503 Service Unavailable: \\u001b[2J\\u001b]0;owned\\u0007down\\r\\nnext",
    );
  });
});

describe("retryAfterMs", () => {
  const now = Date.parse("2026-12-06T20:00:00Z");
  it("reads delay-seconds and the three HTTP-date forms, as GMT", () => {
    expect(retryAfterMs(" 2 ", now)).toBe(2000);
    expect(retryAfterMs("0", now)).toBe(0);
    expect(retryAfterMs("Sun, 06 Dec 2026 20:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Sunday, 06-Dec-26 20:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Sun Dec  6 20:00:05 2026", now)).toBe(5000);
    expect(retryAfterMs("Sun, 06 Dec 2026 19:00:00 GMT", now)).toBe(0);
  });

  it("takes no other text for a date (what the server meant is unknown: the back-off applies)", () => {
    // Date.parse reads these as days in 2001 or the year 120, which made them "now": a retry after 0.25 s.
    for (const header of ["1.5", "120.5", "-5", "2 ", "soon", "1e9", "5 s", "2026-12-06T20:00:05Z"])
      expect([header, retryAfterMs(header, now)]).toEqual([header, header === "2 " ? 2000 : undefined]);
  });
});
