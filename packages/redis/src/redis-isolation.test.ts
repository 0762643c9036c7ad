import { type Engine, EngineUnavailable, type ServerSignal, type SessionSignal } from "@toolsmith/core/engine";
import { Heard, ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";
import { startRedis } from "./testing/redis-server.js";

// What one Redis engine keeps apart: servers (namespaces) sharing a Redis, and sessions whatever their ids.
const PASSWORD = "s3cret:with@odd/chars";
const at = useRedis({ password: PASSWORD });
const opened = async (url: string, name: string, namespace?: string): Promise<Engine> => {
  const engine = createRedisEngine({ url, ...(namespace === undefined ? {} : { namespace }) });
  at.engines.push(engine);
  await engine.start({ name });
  return engine;
};

describe("a Redis URL with a password", () => {
  it("works when right", async () => {
    expect(at.redis.url).toContain("@");
    const engine = await opened(at.redis.url, "with-password");
    const record = recordOf();
    expect(await engine.createSession(record, ROOMY)).toBe("created");
    expect(await engine.loadSession(record.id)).toEqual(record);
  });

  it("fails start clearly when wrong or missing, never saying the password", async () => {
    const wrong = `redis://:${encodeURIComponent(`wrong-${PASSWORD}`)}@127.0.0.1:${at.redis.port}`;
    for (const url of [wrong, `redis://127.0.0.1:${at.redis.port}`]) {
      const engine = createRedisEngine({ url, commandTimeoutMs: 1000 });
      at.engines.push(engine);
      const failure = await Promise.resolve(engine.start({ name: "refused" })).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, url).toBeInstanceOf(EngineUnavailable);
      const message = (failure as Error).message;
      expect(message).toMatch(/WRONGPASS|NOAUTH|auth/i);
      expect(message).toContain(`127.0.0.1:${at.redis.port}`);
      expect(message).not.toContain("wrong-");
      expect(message).not.toContain(encodeURIComponent(PASSWORD));
      expect(message).not.toContain(PASSWORD);
    }
  });
});

describe("a rediss:// URL (TLS)", () => {
  it("works with the server's CA given, and fails start clearly without it", async () => {
    const secure = await startRedis({ tls: true, password: PASSWORD });
    try {
      expect(secure.url.startsWith("rediss://")).toBe(true);
      const engine = createRedisEngine({ url: secure.url, tls: { ca: secure.ca } });
      at.engines.push(engine);
      await engine.start({ name: "over-tls" });
      const record = recordOf();
      expect(await engine.createSession(record, ROOMY)).toBe("created");
      expect(await engine.loadSession(record.id)).toEqual(record);
      // Without the CA the certificate is refused (an upper-case scheme is TLS all the same).
      const untrusting = createRedisEngine({ url: secure.url.replace("rediss:", "REDISS:"), commandTimeoutMs: 1000 });
      at.engines.push(untrusting);
      await expect(Promise.resolve(untrusting.start({ name: "over-tls" }))).rejects.toThrow(/certificate/i);
      // Plain text to a TLS port is no way in either.
      const plain = createRedisEngine({ url: secure.url.replace("rediss:", "redis:"), commandTimeoutMs: 1000 });
      at.engines.push(plain);
      await expect(Promise.resolve(plain.start({ name: "over-tls" }))).rejects.toBeInstanceOf(EngineUnavailable);
    } finally {
      await Promise.all(at.engines.splice(0).map((engine) => engine.close()));
      await secure.stop();
    }
  });
});

describe("two servers on one Redis", () => {
  // Namespaces that would run into each other if written into keys as they are.
  const NAMES = ["app", "app}:s:", "{app", "app:"];

  it("never see each other's sessions, events, signals or broadcasts", async () => {
    const pairs = await Promise.all(
      NAMES.map(async (name) => [await opened(at.redis.url, name), await opened(at.redis.url, name)] as const),
    );
    const id = "shared-id";
    const heard = NAMES.map(() => new Heard<SessionSignal>());
    const broadcasts = NAMES.map(() => new Heard<ServerSignal>());
    for (const [i, [a, b]] of pairs.entries()) {
      expect(await a.createSession(recordOf({ id, clientInfo: { name: NAMES[i]!, version: "1" } }), ROOMY)).toBe(
        "created",
      );
      await a.changeSession(id, { kind: "subscribe", uri: `file:///${i}` });
      await b.follow(id, heard[i]!.push);
      b.onBroadcast(broadcasts[i]!.push);
    }
    for (const [i, [a]] of pairs.entries()) {
      await a.append(id, "get", `event of ${NAMES[i]}`);
      await a.broadcast({ type: "resourceUpdated", uri: `file:///${i}` });
      await a.broadcast({ type: "handle", kind: "tools", name: NAMES[i]!, op: "disable" });
    }
    for (const [i, [a, b]] of pairs.entries()) {
      const events = await heard[i]!.until((items) => items.length >= 1, `the event of ${NAMES[i]}`);
      await broadcasts[i]!.until((items) => items.length >= 2, `the broadcasts of ${NAMES[i]}`);
      // A marker signalled last on this server's channel: whatever of the others' could reach it came before.
      await a.signal(id, { type: "taken", stream: "marker", holder: a.node });
      await heard[i]!.until((items) => items.length >= 2, `the marker of ${NAMES[i]}`);
      expect(events.map((s) => (s.type === "event" ? s.event.data : s.type))).toEqual([
        `event of ${NAMES[i]}`,
        "taken",
      ]);
      expect((await b.loadSession(id))?.clientInfo.name).toBe(NAMES[i]);
      expect(await b.subscribers(`file:///${i}`)).toEqual([id]);
      expect(await b.sessionIds()).toEqual([id]);
      expect(await b.handleOps()).toEqual([{ type: "handle", kind: "tools", name: NAMES[i], op: "disable" }]);
      expect(broadcasts[i]!.items).toEqual([
        { type: "resourceUpdated", uri: `file:///${i}` },
        { type: "handle", kind: "tools", name: NAMES[i], op: "disable" },
      ]);
    }
    // One server ending its session leaves the others' alone.
    await pairs[0]![0].deleteSession(id);
    for (const [i, [, b]] of pairs.entries()) expect((await b.loadSession(id)) === undefined).toBe(i === 0);
  });

  it("keeps every key of a server under ts:{<namespace>}:", async () => {
    await at.raw.flushdb();
    const engine = await opened(at.redis.url, "server name", "ns");
    await engine.createSession(recordOf({ id: "x" }), ROOMY);
    await engine.changeSession("x", { kind: "subscribe", uri: "file:///x" });
    await engine.append("x", "get", "data");
    await engine.running({ session: "x", request: "1", stream: "post-1" });
    await engine.broadcast({ type: "handle", kind: "tools", name: "t", op: "enable" });
    const keys = await at.raw.keys("*");
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !key.startsWith("ts:{ns}:"))).toEqual([]);
  });
});

describe("hostile session ids and stream keys", () => {
  const HOSTILE = ["*", "{", "}", ":", " ", "a b", "x}:s:y", "?[a-z]*", "\\", "x".repeat(10_240)];

  it("stay inside their own keys and channels", async () => {
    const engine = await opened(at.redis.url, "hostile", "hostile");
    const prefix = "ts:{hostile}:";
    await engine.createSession(recordOf({ id: "plain" }), ROOMY);
    const plain = new Heard<SessionSignal>();
    await engine.follow("plain", plain.push);
    for (const id of HOSTILE) {
      expect(await engine.createSession(recordOf({ id, caller: id }), ROOMY)).toBe("created");
      // The 10 KiB one names no subscription: longer than a subscription's URI may be.
      if (id.length <= 1000) await engine.changeSession(id, { kind: "subscribe", uri: id });
      const heard = new Heard<SessionSignal>();
      await engine.follow(id, heard.push);
      const first = await engine.append(id, id, `data of ${id}`);
      await engine.append(id, "other", "not replayed");
      const last = await engine.append(id, id, "again");
      await heard.until((items) => items.length >= 3, `the events of ${JSON.stringify(id.slice(0, 20))}`);
      expect(heard.items.map((s) => (s.type === "event" ? s.event.stream : s.type))).toEqual([id, "other", id]);
      expect(await engine.replay(id, first.id)).toEqual({ stream: id, events: [last] });
    }
    // Exactly the keys named by each id, each under the namespace: none escaped it or landed on another's.
    const expected = new Set([`${prefix}sessions`, `${prefix}node:${engine.node}`]);
    expected.add(`${prefix}s:plain`);
    for (const id of HOSTILE) {
      expected.add(`${prefix}s:${id}`);
      expected.add(`${prefix}e:${id}`);
      if (id.length <= 1000) expected.add(`${prefix}sub:${id}`);
      if (id.length <= 1000) expected.add(`${prefix}u:${id}`);
      expected.add(`${prefix}k:${id}`);
    }
    expected.add(`${prefix}k:${recordOf().caller}`);
    const keys = (await at.raw.keys("*")).filter((key) => key.startsWith(prefix));
    const short = (key: string) => (key.length > 80 ? `${key.slice(0, 80)}…` : key);
    expect(keys.filter((key) => !expected.has(key)).map(short), "keys no id names").toEqual([]);
    expect([...expected].filter((key) => !keys.includes(key)).map(short), "keys missing").toEqual([]);
    // The plain session heard nothing of theirs, and ending "*" ends nothing else.
    expect(plain.items).toEqual([]);
    expect(await engine.deleteSession("*")).toBe(true);
    expect([...(await engine.sessionIds())].sort()).toEqual(["plain", ...HOSTILE.filter((id) => id !== "*")].sort());
    expect(await engine.subscribers("*")).toEqual([]);
    expect(await engine.subscribers("{")).toEqual(["{"]);
  });
});

describe("limits without a bound", () => {
  it("takes Infinity for the limits and the idle time", async () => {
    const engine = await opened(at.redis.url, "unbounded");
    const record = recordOf();
    const limits = {
      max: Number.POSITIVE_INFINITY,
      perCaller: Number.POSITIVE_INFINITY,
      idleMs: Number.POSITIVE_INFINITY,
    };
    expect(await engine.createSession(record, limits)).toBe("created");
    expect(await engine.loadSession(record.id)).toEqual(record);
  });
});
