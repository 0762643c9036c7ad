import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Unavailable, unavailableAware } from "./transient.js";

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
