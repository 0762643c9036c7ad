import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../../server/server.js";
import { createTestClient } from "../../testing/client.js";
import { rpcError } from "../../testing/expect-errors.test-util.js";
import type { Operation } from "../compose.js";
import { kitServer } from "./kit.test-util.js";
import { RATE_LIMITED, rateLimit } from "./rate-limit.js";

// No caller runs a handler more often than the limit allows: requestState exempts only a verified, first redemption
// of an input_required round, never a raw parameter.

const KEY = "a test key of more than sixteen bytes";
const ANA = { subject: "ana", scopes: [] };
const yes = { confirm: { action: "accept", content: { ok: true } } };

function asking(options: { requestStateTtlMs?: number } = {}) {
  const s = createServer({ name: "limited", version: "1", stateKey: KEY, ...options });
  const runs = { add: 0, confirm: 0, survey: 0 };
  s.tool({
    name: "add",
    description: "Add",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => {
      runs.add++;
      return a + b;
    },
  });
  s.tool({
    name: "confirm",
    description: "Asks first",
    handler: async (_args, ctx) => {
      runs.confirm++;
      return (await ctx.elicit({ key: "confirm", message: "ok?", schema: { ok: z.boolean() } })).action;
    },
  });
  s.tool({
    name: "survey",
    description: "Asks twice, in two rounds",
    handler: async (_args, ctx) => {
      runs.survey++;
      const name = await ctx.elicit({ key: "step1", message: "Name?", schema: { name: z.string() } });
      const color = await ctx.elicit({ key: "step2", message: "Colour?", schema: { color: z.string() } });
      return `${name.action} ${color.action}`;
    },
  });
  return { s, runs };
}

const manual = { followInputRequired: false, capabilities: { elicitation: {} }, auth: ANA } as const;
const answering = {
  auth: ANA,
  elicit: async () => ({ action: "accept", content: { ok: true, name: "A", color: "b" } }),
};

async function outcomes(attempts: Promise<unknown>[]): Promise<{ ok: number; limited: number }> {
  const settled = await Promise.allSettled(attempts);
  const limited = settled.filter(
    (one) => one.status === "rejected" && (one.reason as { code?: number }).code === RATE_LIMITED,
  ).length;
  return { ok: settled.filter((one) => one.status === "fulfilled").length, limited };
}

describe("rateLimit and requestState", () => {
  it("handshake era: a junk requestState is charged like any call", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 3, perSecond: 0.0001, now: () => 0 }));
    const client = await createTestClient(s, { protocolVersion: "2025-11-25", auth: ANA });
    const call = () => client.request("tools/call", { name: "add", arguments: { a: 1, b: 1 }, requestState: "junk" });
    expect(await outcomes(Array.from({ length: 12 }, call))).toEqual({ ok: 3, limited: 9 });
    expect(runs.add).toBe(3);
  });

  it("2026-07-28: one genuine requestState replayed 12 times runs the handler no more often than the limit allows", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 3, perSecond: 0.0001, now: () => 0 }));
    const client = await createTestClient(s, manual);
    const first = await client.request("tools/call", { name: "confirm" });
    expect(first.resultType).toBe("input_required");
    const retry = { name: "confirm", inputResponses: yes, requestState: first.requestState };
    // One token for the first call; its round redeemed once for free, then two charged replays, then refusals.
    expect(await outcomes(Array.from({ length: 12 }, () => client.request("tools/call", retry)))).toEqual({
      ok: 3,
      limited: 9,
    });
    expect(runs.confirm).toBe(4);
  });

  it("2026-07-28: the same, one replay at a time", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 3, perSecond: 0.0001, now: () => 0 }));
    const client = await createTestClient(s, manual);
    const first = await client.request("tools/call", { name: "confirm" });
    const retry = { name: "confirm", inputResponses: yes, requestState: first.requestState };
    const answers: string[] = [];
    for (let time = 0; time < 12; time++) {
      answers.push(
        await client.request("tools/call", retry).then(
          () => "ok",
          (error: { code: number }) => String(error.code),
        ),
      );
    }
    expect(answers).toEqual(["ok", "ok", "ok", ...Array(9).fill(String(RATE_LIMITED))]);
    expect(runs.confirm).toBe(4);
  });

  it("2026-07-28: inputResponses without a requestState is a fresh call, charged", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 2, perSecond: 0.0001, now: () => 0 }));
    const client = await createTestClient(s, manual);
    const call = () => client.request("tools/call", { name: "confirm", inputResponses: yes });
    expect(await outcomes(Array.from({ length: 5 }, call))).toEqual({ ok: 2, limited: 3 });
    expect(runs.confirm).toBe(2);
  });

  it("a genuine flow costs exactly one token, however many rounds it takes", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 2, perSecond: 0.0001, now: () => 0 }));
    const client = await createTestClient(s, answering);
    expect(await client.callTool("survey")).toMatchObject({ content: [{ text: "accept accept" }] });
    expect(runs.survey).toBe(3);
    expect(await client.callTool("confirm")).toMatchObject({ content: [{ text: "accept" }] });
    expect((await rpcError(client.callTool("add", { a: 1, b: 1 }))).code).toBe(RATE_LIMITED);
  });

  it("rounds past freeRounds are charged", async () => {
    const { s } = asking();
    s.use(rateLimit({ capacity: 2, perSecond: 0.0001, now: () => 0, freeRounds: 1 }));
    const client = await createTestClient(s, answering);
    // The first call and its first round: one token; the second round: another.
    expect(await client.callTool("survey")).toMatchObject({ content: [{ text: "accept accept" }] });
    expect((await rpcError(client.callTool("add", { a: 1, b: 1 }))).code).toBe(RATE_LIMITED);
  });

  it("with no room left to remember a round, its retry is charged (never free twice)", async () => {
    const { s, runs } = asking();
    s.use(rateLimit({ capacity: 3, perSecond: 0.0001, now: () => 0, maxRounds: 1 }));
    const client = await createTestClient(s, manual);
    const one = await client.request("tools/call", { name: "confirm" });
    const two = await client.request("tools/call", { name: "confirm" });
    await client.request("tools/call", { name: "confirm", inputResponses: yes, requestState: one.requestState });
    await client.request("tools/call", { name: "confirm", inputResponses: yes, requestState: two.requestState });
    const again = { name: "confirm", inputResponses: yes, requestState: one.requestState };
    expect((await rpcError(client.request("tools/call", again))).code).toBe(RATE_LIMITED);
    expect(runs.confirm).toBe(4);
  });
});

describe("rateLimit in a mounted module", () => {
  it("charges a module's flow once and its replays like fresh calls", async () => {
    const { s: module, runs } = asking();
    module.use(rateLimit({ capacity: 2, perSecond: 0.0001, now: () => 0 }));
    const app = createServer({ name: "app", version: "1", stateKey: KEY }).mount("m", module);
    const client = await createTestClient(app, manual);
    const first = await client.request("tools/call", { name: "m.confirm" });
    const retry = { name: "m.confirm", inputResponses: yes, requestState: first.requestState };
    expect(await outcomes(Array.from({ length: 5 }, () => client.request("tools/call", retry)))).toEqual({
      ok: 2,
      limited: 3,
    });
    expect(runs.confirm).toBe(3);
  });
});

describe("operation.round", () => {
  function watched() {
    const { s } = asking();
    const seen: (Operation["round"] | "none")[] = [];
    s.use((operation, next) => {
      if (operation.kind === "call") seen.push(operation.round ?? "none");
      return next();
    });
    return { s, seen };
  }

  it("is set only on a retry whose requestState the connection verified: numbered, one id per issued state", async () => {
    const { s, seen } = watched();
    const client = await createTestClient(s, answering);
    const before = Date.now();
    await client.callTool("survey");
    expect(seen[0]).toBe("none");
    const [first, second] = seen.slice(1) as NonNullable<Operation["round"]>[];
    expect(first).toMatchObject({ number: 1 });
    expect(second).toMatchObject({ number: 2 });
    expect(first?.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(second?.id).not.toBe(first?.id);
    expect(first?.expiresAt).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("is never set from a raw parameter: handshake era, junk, or answers without a state", async () => {
    const { s, seen } = watched();
    const old = await createTestClient(s, { protocolVersion: "2025-11-25" });
    await old.request("tools/call", { name: "add", arguments: { a: 1, b: 1 }, requestState: "junk" });
    const client = await createTestClient(s, manual);
    await client.request("tools/call", { name: "confirm", inputResponses: yes });
    expect(await rpcError(client.request("tools/call", { name: "confirm", requestState: "junk" }))).toBeDefined();
    expect(seen).toEqual(["none", "none"]);
  });
});

describe("rateLimit", () => {
  it("a token bucket per caller: over the burst, -32010 (not HTTP's session -32001) with retryAfterMs; tokens come back with time; lists are free", async () => {
    let now = 0;
    const s = kitServer().use(rateLimit({ capacity: 2, perSecond: 1, now: () => now }));
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
    const s = kitServer().use(rateLimit({ capacity: 1, perSecond: 0.001, maxCallers: 1, now: () => 0 }));
    const ana = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    const bob = await createTestClient(s, { auth: { subject: "bob", scopes: [] } });
    await ana.callTool("add", { a: 1, b: 1 });
    await bob.callTool("add", { a: 1, b: 1 }); // ana's bucket is dropped to make room
    expect(await ana.callTool("add", { a: 1, b: 1 })).toMatchObject({ content: [{ text: "2" }] });
  });

  it("rateLimit keys on the authenticated subject, never on the name a client gives itself", async () => {
    const s = kitServer().use(rateLimit({ capacity: 1, perSecond: 0.0001, now: () => 0 }));
    const ana = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    const impostor = await createTestClient(s, { clientInfo: { name: "ana", version: "1" } });
    await impostor.callTool("add", { a: 1, b: 1 });
    expect(await ana.callTool("add", { a: 1, b: 1 })).toMatchObject({ content: [{ text: "2" }] });
    const renamed = await createTestClient(s, { clientInfo: { name: "someone-else", version: "1" } });
    expect((await rpcError(renamed.callTool("add", { a: 1, b: 1 }))).code).toBe(RATE_LIMITED);
  });
});
