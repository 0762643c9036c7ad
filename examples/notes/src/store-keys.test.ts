import type { Engine } from "@toolsmith/core/engine";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Notes } from "./notes.js";

// Two notebooks (as two processes would hold) on one Redis engine: notes://all and the notes://{id} template are fed
// by store keys, so a change made on either tells every subscriber, on both, of the right URI, once.
let redis: RedisServer;
const engines: Engine[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(engines.map((engine) => engine.close()));
  await redis?.stop();
});

async function notebook(namespace: string): Promise<TestClient> {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = new Notes([], { engine }).toServer();
  await server.startEngine();
  const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
  clients.push(client);
  return client;
}

describe("notes fed by store keys on one Redis engine", () => {
  it("tell each subscriber on both processes of the note and of notes://all, once per change", async () => {
    const namespace = crypto.randomUUID();
    const [one, two] = [await notebook(namespace), await notebook(namespace)];
    const watched = ["notes://all", "notes://1"];
    const streams = [
      await one.listen({ resourceSubscriptions: watched }),
      await two.listen({ resourceSubscriptions: watched }),
    ];
    // Note 1 added on the first (its count, then its key), removed on the second (its key, then the count), then
    // note 2 added on the first (the count only: no one follows notes://2).
    await one.callTool("add", { title: "first", body: "b", tags: [] });
    expect((await two.callTool("remove", { id: "1" })).isError).toBeFalsy();
    await one.callTool("add", { title: "second", body: "b", tags: [] });
    const told = ["notes://1", "notes://1", "notes://all", "notes://all", "notes://all"];
    for (const stream of streams) {
      const uris: string[] = [];
      for (const _ of told) uris.push(String((await stream.next()).params?.uri));
      // One per change: a repeat of one would stand where another is missing.
      expect(uris.sort()).toEqual(told);
      await stream.close();
      expect(stream.notifications).toHaveLength(told.length);
    }
  });
});
