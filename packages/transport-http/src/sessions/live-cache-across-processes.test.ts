import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { until } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { H, initialize, post, URL_ } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Many sessions opened on A and used once on B: what B keeps live (connections, followed channels) stays within its
// maxSessions, and goes when the sessions end.

const { redis, engines, handlers } = sharedRedis();

function process_(namespace: string, maxSessions: number): HttpHandler {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "cache", version: "1", engine });
  server.tool({ name: "t", description: "t", handler: () => "ok" });
  const handle = createHttpHandler(server, { maxSessions, maxSessionsPerCaller: maxSessions });
  handlers.push(handle);
  return handle;
}

// How many processes follow each of `sessions`' channels, in all (redis-cli comes with Debian's redis-server).
async function followers(namespace: string, sessions: readonly string[]): Promise<number> {
  const channels = sessions.map((id) => `ts:{${namespace}}:c:${id}`);
  const { stdout } = await promisify(execFile)("redis-cli", [
    "-p",
    String(redis.port),
    "PUBSUB",
    "NUMSUB",
    ...channels,
  ]);
  const lines = stdout.trim().split("\n");
  return lines.filter((_, index) => index % 2 === 1).reduce((sum, count) => sum + Number(count), 0);
}

it("B keeps at most its maxSessions of A's sessions live, and none once they ended", async () => {
  const namespace = `cache-${crypto.randomUUID()}`;
  const a = process_(namespace, 1000);
  const b = process_(namespace, 10);
  const sessions: string[] = [];
  for (let n = 0; n < 60; n++) {
    const opened = await a(post(initialize(), H));
    const id = opened.headers.get("mcp-session-id") as string;
    sessions.push(id);
    await a(post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...H, "mcp-session-id": id }));
    const used = await b(
      post(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", arguments: {} } },
        { ...H, "mcp-session-id": id },
      ),
    );
    expect(used.status).toBe(200);
    expect(b.sessions).toBeLessThanOrEqual(10);
  }
  // A follows its 60; B no more than its 10.
  await until(
    async () => (await followers(namespace, sessions)) <= 70,
    "B to let go of the channels of the sessions it evicted",
  );
  expect(await followers(namespace, sessions)).toBeGreaterThanOrEqual(60);
  for (const id of sessions) {
    const removed = await a(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": id } }));
    expect(removed.status).toBe(204);
  }
  await until(() => b.sessions === 0 && a.sessions === 0, "both processes to let go of the ended sessions");
  await until(async () => (await followers(namespace, sessions)) === 0, "every channel of the ended sessions let go");
});
