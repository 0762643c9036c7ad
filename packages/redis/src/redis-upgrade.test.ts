import type { Engine } from "@toolsmith/core/engine";
import { ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// A cluster is upgraded one process at a time: what a process of this version reads must hold for records an earlier
// one kept, and what it keeps must be read by that earlier one.
let redis: RedisServer;
let raw: Redis;
let engine: Engine;
const PREFIX = "ts:{upgrade}:";

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
  raw = new Redis(redis.url, { lazyConnect: true, protocol: 2 });
  await raw.connect();
  engine = createRedisEngine({ url: redis.url, namespace: "upgrade" });
  await engine.start({ name: "upgrade" });
});
afterAll(async () => {
  await engine.close();
  raw.disconnect();
  await redis.stop();
});

describe("sessions across versions", () => {
  it("initializedSessions reads the principal of a record kept before it had a field of its own", async () => {
    const kept = recordOf();
    const anonymous = recordOf({ principal: undefined, caller: undefined });
    const older = recordOf({ principal: { subject: "user-2", scopes: ["read"] } });
    const olderAnonymous = recordOf({ principal: undefined, caller: undefined });
    for (const record of [kept, anonymous, older, olderAnonymous]) {
      await engine.createSession(record, ROOMY);
      await engine.changeSession(record.id, { kind: "initialized" });
    }
    // As an earlier version's create left them: the principal only inside the record's fixed JSON.
    for (const record of [older, olderAnonymous]) expect(await raw.hdel(`${PREFIX}s:${record.id}`, "p")).toBe(1);
    const read = [...(await engine.initializedSessions())].sort((x, y) => (x.id < y.id ? -1 : 1));
    const expected = [kept, anonymous, older, olderAnonymous].map(({ id, principal }) => ({ id, principal }));
    expect(read).toEqual(expected.sort((x, y) => (x.id < y.id ? -1 : 1)));
    // What an earlier version reads of a record this one kept: its fixed JSON, principal included, as before.
    const fixed = JSON.parse((await raw.hget(`${PREFIX}s:${kept.id}`, "b")) as string) as { principal: unknown };
    expect(fixed.principal).toEqual(kept.principal);
    expect(await raw.hget(`${PREFIX}s:${kept.id}`, "p")).toBe(JSON.stringify(kept.principal));
    expect(await raw.hget(`${PREFIX}s:${anonymous.id}`, "p")).toBe("");
  });

  it("a record without its fixed part is no session: initializedSessions tells it nothing", async () => {
    const broken = recordOf();
    await engine.createSession(broken, ROOMY);
    await engine.changeSession(broken.id, { kind: "initialized" });
    await raw.hdel(`${PREFIX}s:${broken.id}`, "p", "b");
    expect((await engine.initializedSessions()).map(({ id }) => id)).not.toContain(broken.id);
  });
});
