import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createMemoryEngine, type MemoryEngine } from "../engine/memory.js";
import { LATEST_HANDSHAKE_VERSION } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { KEEP_BOUNDS, Keeper } from "./keep.js";
import type { LogEntry } from "./logger.js";

// ctx.keep: a 2026-07-28 retry resumes with what an earlier round computed (small: encrypted in the sealed
// requestState; large: encrypted in the engine under a keyed MAC of it), never with anything altered or swapped, and
// neither the client nor the engine can read it.

const KEY = "a test key of more than sixteen bytes";
const TTL = 60_000;
const publish = () => ({ action: "accept", content: { publish: true } });
const manual = { followInputRequired: false, capabilities: { elicitation: {} } } as const;

function reportServer(maxValues?: number, shared?: { engine: MemoryEngine; stateKey: string }) {
  let clock = Date.now();
  const engine =
    shared?.engine ?? createMemoryEngine({ now: () => clock, ...(maxValues === undefined ? {} : { maxValues }) });
  const logged: LogEntry[] = [];
  const s = createServer({
    name: "keep",
    version: "1",
    stateKey: shared?.stateKey ?? KEY,
    engine,
    requestStateTtlMs: TTL,
    logger: (entry) => logged.push(entry),
  });
  const runs = { handler: 0, summary: 0, table: 0 };
  s.tool({
    name: "report",
    description: "Counts (slowly), then asks whether to publish",
    input: { rows: z.number().default(1000) },
    task: "optional",
    handler: async ({ rows }, ctx) => {
      runs.handler++;
      const summary = await ctx.keep("summary", () => {
        runs.summary++;
        return { open: 3, closed: 1 };
      });
      const table = await ctx.keep("table", async () => {
        runs.table++;
        return Array.from({ length: rows }, (_, id) => ({ id, title: `issue ${id}` }));
      });
      const answer = await ctx.elicit({ key: "publish", message: "Publish?", schema: { publish: z.boolean() } });
      const published = answer.action === "accept" && answer.content.publish;
      return { ...summary, rows: table.length, last: table.at(-1)?.title ?? null, published };
    },
  });
  return { s, engine, runs, logged, advance: (ms: number) => (clock += ms) };
}

interface StateBody {
  i: string;
  g?: number;
  k?: { n: string; b: number; c?: string; d?: string }[];
}

// The sealed state's body as text (sealed, not secret): what a client could read.
function bodyText(state: string): string {
  const body = state.slice(0, state.indexOf(".")).replace(/-/g, "+").replace(/_/g, "/");
  return new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)));
}

// The sealed state's body: what the tests alter.
function bodyOf(state: string): StateBody {
  return JSON.parse(bodyText(state));
}

async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

const tableDigest = (body: StateBody) => body.k?.find((value) => value.n === "table")?.d;

function withBody(state: string, body: StateBody): string {
  const text = btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(body))));
  return `${text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}${state.slice(state.indexOf("."))}`;
}

async function firstRound(client: Awaited<ReturnType<typeof createTestClient>>, rows = 1000) {
  const result = await client.request("tools/call", { name: "report", arguments: { rows } });
  expect(result.resultType).toBe("input_required");
  return result.requestState as string;
}

const retry = (requestState: string, rows = 1000) => ({
  name: "report",
  arguments: { rows },
  inputResponses: { publish: publish() },
  requestState,
});
const done = (rows = 1000) => ({ open: 3, closed: 1, rows, last: `issue ${rows - 1}`, published: true });

afterEach(() => {
  vi.useRealTimers();
});

describe("ctx.keep across a 2026-07-28 round", () => {
  it("the retry resumes: each value is computed once, the small one encrypted in the state, the large one in the engine", async () => {
    const { s, engine, runs } = reportServer();
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    const { k } = bodyOf(state);
    const summary = k?.find((value) => value.n === "summary");
    const table = k?.find((value) => value.n === "table");
    expect(summary).toEqual({ n: "summary", b: 21, c: expect.stringMatching(/^[\w-]+$/) });
    expect(table).toMatchObject({ n: "table", d: expect.any(String) });
    expect(table).not.toHaveProperty("c");
    // The client reads neither value: the state holds no part of their JSON.
    expect(bodyText(state)).not.toMatch(/open|closed|issue/);
    // The engine holds the large one encrypted, under a key that is not a plain hash of it.
    const kept = engine.getValue(`keep:${table?.d}`) as string;
    expect(kept).toMatch(/^[\w-]+$/);
    expect(atob(kept.replace(/-/g, "+").replace(/_/g, "/"))).not.toMatch(/issue/);
    const json = JSON.stringify(Array.from({ length: 1000 }, (_, id) => ({ id, title: `issue ${id}` })));
    expect(table?.b).toBe(json.length);
    expect(table?.d).not.toBe(await sha256(json));
    expect((await client.request("tools/call", retry(state))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 2, summary: 1, table: 1 });
  });

  it("a client that follows the rounds sees one run of the slow part", async () => {
    const { s, runs } = reportServer();
    const client = await createTestClient(s, { elicit: publish });
    const { result, rounds } = await client.exchange("tools/call", { name: "report", arguments: { rows: 10 } });
    expect(rounds).toBe(1);
    expect(result.structuredContent).toEqual(done(10));
    expect(runs).toEqual({ handler: 2, summary: 1, table: 1 });
  });

  it("the handshake era waits for the answer: computed once, nothing carried", async () => {
    const { s, runs } = reportServer();
    const client = await createTestClient(s, { protocolVersion: LATEST_HANDSHAKE_VERSION, elicit: publish });
    expect((await client.callTool("report", { rows: 10 })).structuredContent).toEqual(done(10));
    expect(runs).toEqual({ handler: 1, summary: 1, table: 1 });
  });

  it("a task waits for the answer: computed once, nothing carried", async () => {
    const { s, runs } = reportServer();
    const client = await createTestClient(s, { elicit: publish, extensions: { tasks: true } });
    const task = await client.task("report", { rows: 10 });
    const finished = await task.wait({ pollIntervalMs: 1 });
    expect(finished).toMatchObject({ status: "completed", result: { structuredContent: done(10) } });
    expect(runs).toEqual({ handler: 1, summary: 1, table: 1 });
  });

  it("a state whose kept value was altered is refused, and nothing runs", async () => {
    const { s, runs } = reportServer();
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    const body = bodyOf(state);
    const altered = withBody(state, {
      ...body,
      k: body.k?.map((value) => (value.n === "summary" ? { ...value, v: { open: 0, closed: 0 } } : value)),
    });
    const error = await rpcError(client.request("tools/call", retry(altered)));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/not issued by this server, or was altered/);
    expect(runs).toEqual({ handler: 1, summary: 1, table: 1 });
  });

  it("an engine value swapped for another round's is not used: computed again, and the server log warns", async () => {
    const { s, engine, runs, logged } = reportServer();
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    const other = await firstRound(client, 900);
    const mine = bodyOf(state);
    const theirs = bodyOf(other);
    const swapped = engine.getValue(`keep:${tableDigest(theirs)}`) as string;
    engine.setValue(`keep:${tableDigest(mine)}`, swapped, { ttlMs: TTL });
    expect((await client.request("tools/call", retry(state))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 3, summary: 2, table: 3 });
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "warning",
        tool: "report",
        message: expect.stringMatching(
          /ctx\.keep\("table"\): the engine's value .* not the one kept \(altered, swapped/,
        ),
      }),
    );
  });

  it("an engine value tampered with, or encrypted with another state key, is not used: computed again, logged without it", async () => {
    const { s, engine, runs, logged } = reportServer();
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    const key = `keep:${tableDigest(bodyOf(state))}`;
    const kept = engine.getValue(key) as string;
    // One bit of the ciphertext flipped: the tag no longer matches.
    const at = kept.length >> 1;
    engine.setValue(key, `${kept.slice(0, at)}${kept[at] === "A" ? "B" : "A"}${kept.slice(at + 1)}`, { ttlMs: TTL });
    expect((await client.request("tools/call", retry(state))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 2, summary: 1, table: 2 });
    // Another server on the same engine with its own state key: the same table is named and encrypted otherwise.
    const other = reportServer(undefined, { engine, stateKey: "another state key of sixteen bytes or more" });
    const theirs = await firstRound(await createTestClient(other.s, manual));
    const their = `keep:${tableDigest(bodyOf(theirs))}`;
    expect(their).not.toBe(key);
    const again = await firstRound(client);
    engine.setValue(`keep:${tableDigest(bodyOf(again))}`, engine.getValue(their) as string, { ttlMs: TTL });
    expect((await client.request("tools/call", retry(again))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 4, summary: 2, table: 4 });
    const warnings = logged.filter((entry) => entry.level === "warning");
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) {
      expect(warning.message).toMatch(/not the one kept \(altered, swapped or encrypted with another key\)/);
      expect(JSON.stringify(warning)).not.toMatch(/issue/);
    }
  });

  it("the engine keeps a value as long as its round: after that it is computed again; a state past it is refused", async () => {
    const { s, runs, logged, advance } = reportServer();
    const client = await createTestClient(s, manual);
    const kept = await firstRound(client);
    const lapsed = await firstRound(client);
    advance(TTL);
    expect((await client.request("tools/call", retry(kept))).structuredContent).toEqual(done());
    expect(runs.table).toBe(2);
    advance(1);
    expect((await client.request("tools/call", retry(lapsed))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 4, summary: 2, table: 3 });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "debug", message: expect.stringMatching(/no longer in the engine/) }),
    );
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + TTL + 1);
    const error = await rpcError(client.request("tools/call", retry(kept)));
    expect(error.message).toMatch(/expired/);
    expect(runs.handler).toBe(4);
  });

  it("a state replayed again and again keeps one copy of a large value in the engine, not one a replay", async () => {
    // Room for 10 values: a copy a replay would fill it in 10 (and refuse every other value of the engine: sign-in's).
    const { s, runs } = reportServer(10);
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    for (let replay = 0; replay < 30; replay++) {
      const again = await client.request("tools/call", {
        name: "report",
        arguments: { rows: 1000 },
        requestState: state,
      });
      expect(again.resultType).toBe("input_required");
      // The same key rewritten: its name is a MAC of the value, not of the round.
      expect(tableDigest(bodyOf(again.requestState as string))).toBe(tableDigest(bodyOf(state)));
    }
    expect((await client.request("tools/call", retry(state))).structuredContent).toEqual(done());
    expect(runs).toEqual({ handler: 32, summary: 1, table: 1 });
  });

  it("without a state key: the rounds resume all the same, with keys random to the process", async () => {
    const s = createServer({ name: "keep", version: "1" });
    let computed = 0;
    s.tool({
      name: "large",
      description: "Keeps a large value, then asks",
      handler: async (_args, ctx) => {
        const text = await ctx.keep("text", () => {
          computed++;
          return "secret ".repeat(1000);
        });
        const answer = await ctx.elicit({ message: "Go?", schema: { go: z.boolean() } });
        return `${text.length} ${answer.action}`;
      },
    });
    const client = await createTestClient(s, { elicit: () => ({ action: "accept", content: { go: true } }) });
    const { result, rounds } = await client.exchange("tools/call", { name: "large" });
    expect({ rounds, computed, content: result.content }).toEqual({
      rounds: 1,
      computed: 1,
      content: [{ type: "text", text: "7000 accept" }],
    });
  });

  it("two retries of one round at once both resume from it", async () => {
    const { s, runs } = reportServer();
    const client = await createTestClient(s, manual);
    const state = await firstRound(client);
    const [one, two] = await Promise.all([
      client.request("tools/call", retry(state)),
      client.request("tools/call", retry(state)),
    ]);
    expect([one.structuredContent, two.structuredContent]).toEqual([done(), done()]);
    expect(runs).toEqual({ handler: 3, summary: 1, table: 1 });
  });

  it("every round carries what was kept, read in that round or not; progress already reported is not sent again", async () => {
    const s = createServer({ name: "keep", version: "1", stateKey: KEY });
    let handler = 0;
    let computed = 0;
    s.tool({
      name: "survey",
      description: "Counts, then asks twice",
      handler: async (_args, ctx) => {
        handler++;
        ctx.progress(1, 4, "counting");
        // The second run does not read it before asking again: its state carries it all the same.
        const table =
          handler === 2
            ? ""
            : await ctx.keep("table", () => {
                computed++;
                return "x".repeat(10_000);
              });
        ctx.progress(2, 4, "counted");
        const one = await ctx.elicit({ key: "one", message: "One?", schema: { ok: z.boolean() } });
        ctx.progress(3, 4, "asked once");
        const two = await ctx.elicit({ key: "two", message: "Two?", schema: { ok: z.boolean() } });
        ctx.progress(4, 4, "asked twice");
        return `${table.length} ${one.action} ${two.action}`;
      },
    });
    const client = await createTestClient(s, { elicit: () => ({ action: "accept", content: { ok: true } }) });
    const { result, rounds, notifications } = await client.exchange("tools/call", {
      name: "survey",
      _meta: { progressToken: "p" },
    });
    expect(rounds).toBe(2);
    expect(result.content).toEqual([{ type: "text", text: "10000 accept accept" }]);
    expect({ handler, computed }).toEqual({ handler: 3, computed: 1 });
    const progress = notifications.filter((note) => note.method === "notifications/progress");
    expect(progress.map((note) => note.params?.message)).toEqual(["counting", "counted", "asked once", "asked twice"]);
  });

  it("a value that is not JSON, or too large, is refused with a clear error the tool returns", async () => {
    const s = createServer({ name: "keep", version: "1" });
    s.tool({
      name: "bad",
      description: "Keeps what it is given",
      input: { what: z.enum(["date", "large"]) },
      handler: async ({ what }, ctx) =>
        ctx.keep(what, () => (what === "date" ? { at: new Date(0) } : "x".repeat(KEEP_BOUNDS.valueBytes))),
    });
    for (const protocolVersion of ["2026-07-28", LATEST_HANDSHAKE_VERSION] as const) {
      const client = await createTestClient(s, { protocolVersion });
      expect(await client.callTool("bad", { what: "date" })).toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/^ctx\.keep\("date"\): value\.at is a Date, and only JSON is kept/) }],
      });
      expect(await client.callTool("bad", { what: "large" })).toMatchObject({
        isError: true,
        content: [
          {
            text: expect.stringMatching(/^ctx\.keep\("large"\): the value is 49126 bytes of JSON, more than the 49124/),
          },
        ],
      });
    }
  });
});

describe("Keeper", () => {
  const refusals: [string, unknown, RegExp][] = [
    ["undefined", undefined, /value is undefined/],
    ["NaN", { n: Number.NaN }, /value\.n is NaN/],
    ["a function", [1, () => 1], /value\[1\] is a function/],
    ["a Map", { "a b": new Map() }, /value\["a b"\] is a Map/],
    ["a class instance", new (class Point {})(), /value is a Point/],
    ["an array with a hole", new Array(2), /array with holes/],
    ["undefined in an object", { a: undefined }, /value\.a is undefined/],
    ["a bigint", 1n, /value is a bigint/],
    ["a toJSON method", { toJSON: () => 1 }, /value has a toJSON method/],
  ];
  it.each(refusals)("refuses %s: a TypeError naming where", async (_name, value, why) => {
    const error = await new Keeper().keep("x", () => value).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(why);
  });

  it("refuses a cycle", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await expect(new Keeper().keep("x", () => cycle)).rejects.toThrow(/nests deeper than 64 levels/);
  });

  it("keeps JSON, __proto__ keys as plain data", async () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"list":[null,true,1.5,"ü"]}');
    expect(await new Keeper().keep("x", () => value)).toBe(value);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a name kept or being computed is computed once; one whose compute failed is free again", async () => {
    const keeper = new Keeper();
    let runs = 0;
    const slow = async () => {
      runs++;
      await Promise.resolve();
      return runs;
    };
    expect(await Promise.all([keeper.keep("a", slow), keeper.keep("a", slow)])).toEqual([1, 1]);
    expect(await keeper.keep("a", slow)).toBe(1);
    await expect(keeper.keep("b", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await keeper.keep("b", () => "up")).toBe("up");
    expect(runs).toBe(1);
  });

  it("bounds names, count and bytes per request", async () => {
    const keeper = new Keeper();
    await expect(keeper.keep("", () => 1)).rejects.toThrow(TypeError);
    await expect(keeper.keep("n".repeat(KEEP_BOUNDS.nameChars + 1), () => 1)).rejects.toThrow(/1 to 128/);
    expect(KEEP_BOUNDS.valueBytes).toBe(49_124);
    const largest = "x".repeat(KEEP_BOUNDS.valueBytes - 2);
    await expect(keeper.keep("too large", () => `${largest}x`)).rejects.toThrow(/49125 bytes of JSON/);
    for (let index = 0; index < 5; index++) await keeper.keep(`big${index}`, () => largest);
    const rest = "x".repeat(KEEP_BOUNDS.requestBytes - 5 * KEEP_BOUNDS.valueBytes - 2);
    await expect(keeper.keep("rest", () => rest)).resolves.toBe(rest);
    await expect(keeper.keep("one more", () => "")).rejects.toThrow(/more than the 262144 allowed/);
    const many = new Keeper();
    for (let index = 0; index < KEEP_BOUNDS.values; index++) await many.keep(`small${index}`, () => index);
    await expect(many.keep("one more", () => 1)).rejects.toThrow(/at most 16 names/);
    expect(await many.keep("small3", () => 1)).toBe(3);
  });
});
