import { afterEach, describe, expect, it, vi } from "vitest";
import { engineSuite, Heard, ROOMY, recordOf, taskOf } from "../engine-suite/index.js";
import { isPromiseLike } from "../wire/maybe.js";
import type { SessionLimits, SessionSignal } from "./engine.js";
import { createMemoryEngine, type MemoryEngine } from "./memory.js";

engineSuite("memory", async () => {
  const engine = createMemoryEngine();
  return { engines: [engine], cleanup: async () => engine.close() };
});

const engines: MemoryEngine[] = [];
function memory(options?: Parameters<typeof createMemoryEngine>[0]): MemoryEngine {
  const engine = createMemoryEngine(options);
  engines.push(engine);
  return engine;
}
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close();
  vi.restoreAllMocks();
});

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number): void {
      now += ms;
    },
  };
}

describe("the memory engine", () => {
  it("answers every method at once: none returns a thenable", async () => {
    const engine = memory();
    const { id } = recordOf();
    const results: unknown[] = [
      engine.start({ name: "s" }),
      engine.createSession(recordOf({ id }), ROOMY),
      engine.loadSession(id),
      engine.changeSession(id, { kind: "subscribe", uri: "file:///a" }),
      engine.subscribers("file:///a"),
      engine.sessionIds(),
      engine.append(id, "get", "x"),
      engine.replay(id, "1"),
      engine.signal(id, { type: "taken", stream: "get", holder: "n" }),
      engine.follow(id, () => {}),
      engine.broadcast({ type: "resourceUpdated", uri: "file:///a" }),
      engine.onBroadcast(() => {}),
      engine.handleOps(),
      engine.onResume(() => {}),
      engine.running({ session: id, request: "1", stream: "p" }),
      engine.finished(id, "1"),
      engine.onOrphan(() => {}),
      engine.createTask(taskOf({ id })),
      engine.loadTask(id),
      engine.changeTask(id, { kind: "message", statusMessage: "x" }),
      engine.answerTask(id, {}),
      engine.followTask(id, () => {}),
      engine.taskRunning(id),
      engine.taskFinished(id),
      engine.onOrphanTask(() => {}),
      engine.deleteSession(id),
      engine.close(),
    ];
    expect(results.filter((result) => isPromiseLike(result))).toEqual([]);
    expect(engine.shared).toBe(false);
    expect(engine.node).not.toBe(memory().node);
  });

  it("ends a session idle past its idleMs (its own clock), a load restarting it, and gives its place back", () => {
    const time = clock();
    const engine = memory({ now: time.now });
    const limits: SessionLimits = { max: 1, perCaller: 1, idleMs: 1000 };
    const record = recordOf();
    engine.createSession(record, limits);
    time.advance(1000);
    expect(engine.loadSession(record.id)?.id).toBe(record.id);
    time.advance(1000);
    expect(engine.sessionIds()).toEqual([record.id]);
    expect(engine.createSession(recordOf(), limits)).toBe("full");
    time.advance(1);
    expect(engine.createSession(recordOf(), limits)).toBe("created");
    expect(engine.loadSession(record.id)).toBeUndefined();
  });

  it("signals `ended` for a session found expired on access, in a later microtask", async () => {
    const time = clock();
    const engine = memory({ now: time.now });
    const record = recordOf();
    engine.createSession(record, { ...ROOMY, idleMs: 10 });
    const heard = new Heard<SessionSignal>();
    engine.follow(record.id, heard.push);
    engine.changeSession(record.id, { kind: "subscribe", uri: "file:///a" });
    time.advance(11);
    expect(engine.subscribers("file:///a")).toEqual([]);
    expect(heard.items).toEqual([]);
    await null;
    expect(heard.items).toEqual([{ type: "ended" }]);
  });

  it("ends an idle session unasked, by a sweep that does not hold the process open", async () => {
    const timeout = vi.spyOn(globalThis, "setTimeout");
    const engine = memory();
    const record = recordOf();
    engine.createSession(record, { ...ROOMY, idleMs: 20 });
    const timer = timeout.mock.results[0]?.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    const heard = new Heard<SessionSignal>();
    engine.follow(record.id, heard.push);
    await heard.until((items) => items.length > 0, "the sweep to end the idle session");
    expect(heard.items).toEqual([{ type: "ended" }]);
  });

  it("clears its timer, listeners and pending signals on close; every method then throws", async () => {
    const clear = vi.spyOn(globalThis, "clearTimeout");
    const engine = memory();
    const { id } = recordOf();
    engine.createSession(recordOf({ id }), ROOMY);
    const heard = new Heard<SessionSignal>();
    const unfollow = engine.follow(id, heard.push);
    engine.append(id, "get", "never heard");
    engine.close();
    expect(clear).toHaveBeenCalledTimes(1);
    await null;
    expect(heard.items).toEqual([]);
    unfollow();
    engine.close();
    expect(() => engine.loadSession(id)).toThrow(/memory engine is closed/);
    expect(() => engine.append(id, "get", "x")).toThrow(/memory engine is closed/);
    expect(() => engine.follow(id, () => {})).toThrow(/memory engine is closed/);
    expect(() => engine.start({ name: "again" })).toThrow(/memory engine is closed/);
  });

  it("keeps `eventsPerSession` events, ids counting up from 1 per session", () => {
    const engine = memory({ eventsPerSession: 3 });
    const [a, b] = [recordOf(), recordOf()];
    engine.createSession(a, ROOMY);
    engine.createSession(b, ROOMY);
    expect([1, 2, 3, 4].map((i) => engine.append(a.id, "get", `${i}`).id)).toEqual(["1", "2", "3", "4"]);
    expect(engine.append(b.id, "get", "b").id).toBe("1");
    expect(engine.replay(a.id, "1")).toBeUndefined();
    expect(engine.replay(a.id, "2")?.events.map((e) => e.data)).toEqual(["3", "4"]);
    expect(engine.replay(a.id, "5")).toBeUndefined();
    expect(() => createMemoryEngine({ eventsPerSession: 0 })).toThrow(RangeError);
  });

  it("tells followers after the call that caused it, and a signal sent by a listener after those before it", async () => {
    const engine = memory();
    const { id } = recordOf();
    engine.createSession(recordOf({ id }), ROOMY);
    const heard = new Heard<SessionSignal>();
    engine.follow(id, (signal) => {
      if (signal.type === "event" && signal.event.data === "1")
        engine.signal(id, { type: "client", line: "l", from: "f" });
    });
    engine.follow(id, heard.push);
    engine.append(id, "get", "1");
    engine.append(id, "get", "2");
    expect(heard.items).toEqual([]);
    await heard.until((items) => items.length === 3, "both events and the listener's signal");
    expect(heard.items.map((s) => (s.type === "event" ? s.event.data : s.type))).toEqual(["1", "2", "client"]);
  });

  it("hands out records that later changes leave as they were", () => {
    const engine = memory();
    const record = recordOf();
    engine.createSession(record, ROOMY);
    const before = engine.loadSession(record.id);
    engine.changeSession(record.id, { kind: "logLevel", level: "debug" });
    expect(before?.logLevel).toBeUndefined();
    expect(engine.loadSession(record.id)?.logLevel).toBe("debug");
  });

  it("hears no broadcast (there is no other process) and hands out a copy of its handle ops", () => {
    const engine = memory();
    const heard: unknown[] = [];
    engine.onBroadcast((signal) => heard.push(signal));
    engine.broadcast({ type: "handle", kind: "tools", name: "t", op: "disable" });
    (engine.handleOps() as unknown[]).length = 0;
    expect(engine.handleOps()).toEqual([{ type: "handle", kind: "tools", name: "t", op: "disable" }]);
    expect(heard).toEqual([]);
  });
});
