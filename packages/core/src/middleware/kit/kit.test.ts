import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../../server/server.js";
import { createTestClient } from "../../testing/client.js";
import { rpcError } from "../../testing/expect-errors.test-util.js";
import { McpError } from "../../wire/errors.js";
import {
  type AuditRecord,
  audit,
  RATE_LIMITED,
  type RequestLogLine,
  rateLimit,
  requestLog,
  TimeoutError,
  timeout,
} from "./index.js";

function server() {
  const s = createServer({ name: "kit", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  s.tool({
    name: "fail",
    description: "Fails",
    handler: () => {
      throw new Error("no");
    },
  });
  s.tool({ name: "refuse", description: "Refuses", handler: () => Promise.reject(new McpError(-32002, "gone")) });
  s.tool({
    name: "slow",
    description: "Waits for its signal",
    handler: (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve(`stopped: ${String((ctx.signal.reason as Error).name)}`)),
      ),
  });
  s.resource({ uri: "docs://slow", handler: () => new Promise(() => {}) });
  return s;
}

describe("requestLog", () => {
  it("logs each operation with its caller, outcome and duration", async () => {
    const lines: RequestLogLine[] = [];
    let clock = 0;
    const s = server().use(
      requestLog(
        (line) => lines.push(line),
        () => (clock += 2.5),
      ),
    );
    const client = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    await client.callTool("add", { a: 1, b: 2 });
    await client.callTool("fail");
    await rpcError(client.callTool("refuse"));
    expect(lines.map((line) => line.text)).toEqual([
      "tools/call add (ana) ok 2.5 ms",
      "tools/call fail (ana) isError 2.5 ms",
      "tools/call refuse (ana) error -32002 2.5 ms",
    ]);
  });
});

describe("rateLimit", () => {
  it("a token bucket per caller: over the burst, -32010 (not HTTP's session -32001) with retryAfterMs; tokens come back with time; lists are free", async () => {
    let now = 0;
    const s = server().use(rateLimit({ capacity: 2, perSecond: 1, now: () => now }));
    const ana = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    const bob = await createTestClient(s, { auth: { subject: "bob", scopes: [] } });
    await ana.callTool("add", { a: 1, b: 1 });
    await ana.callTool("add", { a: 1, b: 1 });
    const refused = await rpcError(ana.callTool("add", { a: 1, b: 1 }));
    expect(refused).toMatchObject({ code: -32010, data: { retryAfterMs: 1000 } });
    expect(await bob.callTool("add", { a: 2, b: 2 })).toMatchObject({ content: [{ text: "4" }] });
    expect((await ana.listTools()).length).toBe(4);
    now = 1000;
    expect(await ana.callTool("add", { a: 3, b: 3 })).toMatchObject({ content: [{ text: "6" }] });
  });

  it("keeps at most maxCallers buckets", async () => {
    const s = server().use(rateLimit({ capacity: 1, perSecond: 0.001, maxCallers: 1, now: () => 0 }));
    const ana = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    const bob = await createTestClient(s, { auth: { subject: "bob", scopes: [] } });
    await ana.callTool("add", { a: 1, b: 1 });
    await bob.callTool("add", { a: 1, b: 1 }); // ana's bucket is dropped to make room
    expect(await ana.callTool("add", { a: 1, b: 1 })).toMatchObject({ content: [{ text: "2" }] });
  });
});

describe("timeout", () => {
  it("aborts the handler's signal with a TimeoutError and answers a tool with isError at once", async () => {
    const s = server().use(timeout(10));
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const result = await client.callTool("slow");
    expect(result).toMatchObject({ isError: true, content: [{ text: "tools/call slow timed out after 10 ms" }] });
    expect(TimeoutError.name).toBe("TimeoutError");
  });

  it("answers a read that never ends with -32603, and leaves synchronous answers alone", async () => {
    const s = server().use(timeout((operation) => (operation.kind === "read" ? 10 : undefined)));
    const client = await createTestClient(s);
    expect((await rpcError(client.readResource("docs://slow"))).message).toBe("resources/read timed out after 10 ms");
    expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
  });
});

describe("audit", () => {
  it("records who did what to what, how it went, with argument values redacted by default", async () => {
    const records: AuditRecord[] = [];
    const s = server().use(audit((entry) => records.push(entry)));
    const client = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    await client.callTool("add", { a: 1, b: 2 });
    await client.callTool("fail");
    await rpcError(client.callTool("refuse"));
    await client.listTools();
    expect(records.map(({ at: _at, ...rest }) => rest)).toEqual([
      { method: "tools/call", name: "add", caller: "ana", arguments: { a: "number", b: "number" }, outcome: "ok" },
      { method: "tools/call", name: "fail", caller: "ana", outcome: "isError" },
      { method: "tools/call", name: "refuse", caller: "ana", outcome: "error", code: -32002 },
    ]);
  });
});

describe("the kit and 2026-07-28 input_required rounds", () => {
  function asking() {
    const s = createServer({ name: "asks", version: "1" });
    s.tool({
      name: "confirm",
      description: "asks first",
      handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
    });
    return s;
  }

  it("a round that asks is logged and audited as input_required, and its retry costs no token", async () => {
    const lines: string[] = [];
    const records: string[] = [];
    const s = asking().use(
      requestLog((line) => lines.push(line.outcome)),
      audit((entry) => records.push(entry.outcome)),
      rateLimit({ capacity: 1, perSecond: 0.0001, now: () => 0 }),
    );
    const client = await createTestClient(s, {
      auth: { subject: "ana", scopes: [] },
      elicit: async () => ({ action: "accept", content: { ok: true } }),
    });
    expect(await client.callTool("confirm")).toMatchObject({ content: [{ text: "accept" }] });
    expect(lines).toEqual(["input_required", "ok"]);
    expect(records).toEqual(["input_required", "ok"]);
  });

  it("a sink that throws changes nothing the client gets, and is told once", async () => {
    let told = 0;
    const s = server().use(
      requestLog(() => {
        told++;
        throw new Error("disk full");
      }),
    );
    const client = await createTestClient(s);
    expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
    expect(told).toBe(1);
  });

  it("rateLimit keys on the authenticated subject, never on the name a client gives itself", async () => {
    const s = server().use(rateLimit({ capacity: 1, perSecond: 0.0001, now: () => 0 }));
    const ana = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    const impostor = await createTestClient(s, { clientInfo: { name: "ana", version: "1" } });
    await impostor.callTool("add", { a: 1, b: 1 });
    expect(await ana.callTool("add", { a: 1, b: 1 })).toMatchObject({ content: [{ text: "2" }] });
    const renamed = await createTestClient(s, { clientInfo: { name: "someone-else", version: "1" } });
    expect((await rpcError(renamed.callTool("add", { a: 1, b: 1 }))).code).toBe(RATE_LIMITED);
  });
});
