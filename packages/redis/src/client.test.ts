import type { Socket } from "node:net";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { useRedis } from "./redis.test-util.js";

const at = useRedis({}, "all");
const clients: Redis[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

/** A started client, and how many writes (and batched writes) its socket then makes. */
async function counted(batched: boolean) {
  const client = createClient(at.redis.url, 2000, "batching", undefined, batched);
  clients.push(client);
  await client.connect();
  const socket = (client as unknown as { stream: Socket & { _write: unknown; _writev: unknown } }).stream;
  const made = { writes: 0, batches: 0 };
  const write = socket._write as (...args: unknown[]) => void;
  const writev = socket._writev as (...args: unknown[]) => void;
  socket._write = (...args: unknown[]) => {
    made.writes += 1;
    write.apply(socket, args);
  };
  socket._writev = (...args: unknown[]) => {
    made.batches += 1;
    writev.apply(socket, args);
  };
  return { client, made };
}

describe("a batched client", () => {
  it("sends the commands of one turn in one write, answered each on its own and in order", async () => {
    const { client, made } = await counted(true);
    const counts = await Promise.all(Array.from({ length: 10 }, () => client.incr("batched")));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(made).toEqual({ writes: 0, batches: 1 });
    // A turn of one command is one plain write.
    expect(await client.get("batched")).toBe("10");
    expect(made).toEqual({ writes: 1, batches: 1 });
  });

  it("is not batched unless asked: one write per command", async () => {
    const { client, made } = await counted(false);
    await Promise.all(Array.from({ length: 10 }, (_, index) => client.set(`plain:${index}`, "x")));
    expect(made).toEqual({ writes: 10, batches: 0 });
  });
});
