import type { Engine, SessionRecord, TaskRecord } from "@toolsmith/core/engine";
import { ROOMY, recordOf, taskOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Redis is often shared and readable by more than the server: it must never hold a credential.
let redis: RedisServer;
let raw: Redis;
beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
  raw = new Redis(redis.url, { lazyConnect: true, protocol: 2 });
  await raw.connect();
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
});

/** Every key's name and value, whatever its type, as text. */
async function dump(): Promise<string> {
  const parts: string[] = [];
  for (const key of await raw.keys("*")) {
    parts.push(key);
    const type = await raw.type(key);
    if (type === "string") parts.push(String(await raw.get(key)));
    else if (type === "hash") parts.push(JSON.stringify(await raw.hgetall(key)));
    else if (type === "list") parts.push(JSON.stringify(await raw.lrange(key, 0, -1)));
    else if (type === "set") parts.push(JSON.stringify(await raw.smembers(key)));
    else if (type === "zset") parts.push(JSON.stringify(await raw.zrange(key, "0", "-1")));
    else if (type === "stream") parts.push(JSON.stringify(await raw.xrange(key, "-", "+")));
    else parts.push(`<${type}>`);
  }
  return parts.join("\n");
}

describe("what the Redis engine keeps", () => {
  it("holds no token, password, extra claim or state key of a session's principal, in any key", async () => {
    const engine: Engine = createRedisEngine({ url: redis.url });
    await engine.start({ name: "secrets" });
    try {
      const record = recordOf();
      const given = {
        ...record,
        stateKey: "STATE-KEY-4b1d",
        auth: { token: "TOKEN-8c2e" },
        principal: {
          ...record.principal,
          token: "TOKEN-8c2e",
          password: "PASSWORD-77aa",
          extra: { claim: "CLAIM-19fe" },
        },
      } as unknown as SessionRecord;
      await engine.createSession(given, ROOMY);
      await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///a" });
      await engine.changeSession(record.id, { kind: "initialized" });
      await engine.loadSession(record.id);
      await engine.append(record.id, "get", '{"jsonrpc":"2.0","method":"notifications/x"}');
      await engine.running({ session: record.id, request: "1", stream: "post-1" });
      await engine.broadcast({ type: "handle", kind: "tools", name: "t", op: "disable" });
      // A task keeps its owner as a subject, and only the fields a task and its questions name.
      const task = taskOf({ owner: "user-1" });
      await engine.createTask({ ...task, auth: { token: "TOKEN-8c2e" }, stateKey: "STATE-KEY-4b1d" } as TaskRecord);
      const request = { method: "elicitation/create", params: {}, token: "TOKEN-8c2e" };
      await engine.changeTask(task.id, { kind: "ask", key: "elicit-1", request });
      await engine.taskRunning(task.id);
      const everything = await dump();
      expect(everything).toContain(record.id);
      expect(everything).toContain(task.id);
      for (const secret of ["STATE-KEY-4b1d", "TOKEN-8c2e", "PASSWORD-77aa", "CLAIM-19fe"]) {
        expect(everything).not.toContain(secret);
      }
    } finally {
      await engine.close();
    }
  });
});
