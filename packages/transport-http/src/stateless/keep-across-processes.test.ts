import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type LogEntry } from "@toolsmith/core";
import { createMemoryEngine, type Engine } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { sharedRedis } from "../sessions/shared-redis.test-util.js";

// ctx.keep across processes: a 2026-07-28 call asks on process A and its retry lands on B. On one Redis, B resumes
// with the large value A kept there; on memory engines B cannot see it, so it computes it again (and says so in its
// log), and the call completes all the same. Redis holds the value encrypted, under a name that is no plain hash of it.

const STATE_KEY = "one state key for every process of the server";
const shared = sharedRedis();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

interface Process {
  readonly handle: HttpHandler;
  readonly logged: LogEntry[];
}

function deployment(engines: Engine[]) {
  const computed: string[] = [];
  const processes = engines.map((engine, index): Process => {
    const logged: LogEntry[] = [];
    const server = createServer({
      name: "kept",
      version: "1",
      stateKey: STATE_KEY,
      engine,
      logger: (e) => logged.push(e),
    });
    server.tool({
      name: "report",
      description: "Builds a large report, then asks whether to publish it",
      handler: async (_args, ctx) => {
        const rows = await ctx.keep("rows", () => {
          computed.push(`process ${index}`);
          return Array.from({ length: 2000 }, (_, id) => `row ${id}`);
        });
        const answer = await ctx.elicit({ message: "Publish?", schema: { publish: z.boolean() } });
        return { rows: rows.length, published: answer.action === "accept" && answer.content.publish };
      },
    });
    const handle = createHttpHandler(server);
    shared.handlers.push(handle);
    return { handle, logged };
  });
  // A round-robin proxy in-process: each request goes to the next process.
  const served: number[] = [];
  let next = 0;
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const index = next++ % processes.length;
    served.push(index);
    return (processes[index] as Process).handle(new Request(url, init));
  };
  return { processes, computed, served, fetch };
}

// Every key of the test's redis-server and every value it holds (strings, hashes, lists, sets, sorted sets, streams),
// as redis-cli prints them: what anyone with access to Redis could read.
const EVERYTHING = `local out, cursor = {}, "0"
local function add(list) for _, item in ipairs(list) do
  if type(item) == "table" then add(item) else out[#out + 1] = tostring(item) end end end
repeat
  local page = redis.call("SCAN", cursor, "COUNT", 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    out[#out + 1] = key
    local kind = redis.call("TYPE", key).ok
    if kind == "string" then out[#out + 1] = redis.call("GET", key)
    elseif kind == "hash" then add(redis.call("HGETALL", key))
    elseif kind == "list" then add(redis.call("LRANGE", key, 0, -1))
    elseif kind == "set" then add(redis.call("SMEMBERS", key))
    elseif kind == "zset" then add(redis.call("ZRANGE", key, 0, -1))
    elseif kind == "stream" then add(redis.call("XRANGE", key, "-", "+")) end
  end
until cursor == "0"
return out`;

async function everythingInRedis(): Promise<string> {
  const { stdout } = await promisify(execFile)(
    "redis-cli",
    ["-p", String(shared.redis.port), "EVAL", EVERYTHING, "0"],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout;
}

async function connect(
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>,
  // What happens while the user is asked (between the round and its retry).
  meanwhile: () => Promise<void> = async () => {},
): Promise<Client> {
  const client = new Client(
    { name: "keep", version: "1" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async () => {
    await meanwhile();
    return { action: "accept" as const, content: { publish: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3000/mcp"), { fetch }));
  clients.push(client);
  return client;
}

describe("ctx.keep when the retry lands on another process (2026-07-28, official client)", () => {
  it("on one Redis: the other process resumes with the value kept there", async () => {
    const namespace = `keep-${Date.now()}`;
    const engines = [0, 1].map(() => createRedisEngine({ url: shared.redis.url, namespace }));
    shared.engines.push(...engines);
    const { processes, computed, served, fetch } = deployment(engines);
    const client = await connect(fetch);
    const from = served.length;
    const result = await client.callTool({ name: "report", arguments: {} });
    expect(result.structuredContent).toEqual({ rows: 2000, published: true });
    // The call on one process, its retry on the other; the rows built once, on the first.
    const [asked, answered] = served.slice(from);
    expect(answered).toBe(((asked as number) + 1) % 2);
    expect(computed).toEqual([`process ${asked}`]);
    expect(processes.flatMap((process) => process.logged)).toEqual([]);
    // Redis holds no kept value in clear, nor a plain SHA-256 of it (which would confirm a guess).
    const json = JSON.stringify(Array.from({ length: 2000 }, (_, id) => `row ${id}`));
    const everything = await everythingInRedis();
    expect(everything).toMatch(/keep:[\w-]{43}/);
    expect(everything).not.toMatch(/row \d/);
    expect(everything).not.toContain(createHash("sha256").update(json).digest("base64url"));
    expect(everything).not.toContain(createHash("sha256").update(json).digest("hex"));
  });

  it("on one Redis, the kept value tampered with there between the rounds: the other process computes it again", async () => {
    const namespace = `keep-${crypto.randomUUID()}`;
    const engines = [0, 1].map(() => createRedisEngine({ url: shared.redis.url, namespace }));
    shared.engines.push(...engines);
    const { processes, computed, served, fetch } = deployment(engines);
    const cli = (...args: string[]) =>
      promisify(execFile)("redis-cli", ["-p", String(shared.redis.port), ...args]).then(({ stdout }) => stdout.trim());
    const client = await connect(fetch, async () => {
      const [key, more] = (await cli("--scan", "--pattern", `ts:{${namespace}}:v:keep:*`)).split("\n");
      expect(more).toBeUndefined();
      const kept = await cli("GET", key as string);
      const at = kept.length >> 1;
      await cli(
        "SET",
        key as string,
        `${kept.slice(0, at)}${kept[at] === "A" ? "B" : "A"}${kept.slice(at + 1)}`,
        "KEEPTTL",
      );
    });
    const from = served.length;
    const result = await client.callTool({ name: "report", arguments: {} });
    expect(result.structuredContent).toEqual({ rows: 2000, published: true });
    const [asked, answered] = served.slice(from) as [number, number];
    expect(computed).toEqual([`process ${asked}`, `process ${answered}`]);
    const logged = (processes[answered] as Process).logged;
    expect(logged).toEqual([
      expect.objectContaining({
        level: "warning",
        message: expect.stringMatching(
          /the engine's value for round .* not the one kept \(altered, swapped or encrypted/,
        ),
      }),
    ]);
    expect(JSON.stringify(logged)).not.toMatch(/row \d/);
  });

  it("on memory engines: the other process has not got it, computes it again, and its log says why", async () => {
    const { processes, computed, served, fetch } = deployment([createMemoryEngine(), createMemoryEngine()]);
    const client = await connect(fetch);
    const from = served.length;
    const result = await client.callTool({ name: "report", arguments: {} });
    expect(result.structuredContent).toEqual({ rows: 2000, published: true });
    const [asked, answered] = served.slice(from) as [number, number];
    expect(computed).toEqual([`process ${asked}`, `process ${answered}`]);
    expect((processes[answered] as Process).logged).toEqual([
      expect.objectContaining({
        level: "debug",
        tool: "report",
        message: expect.stringMatching(/no longer in the engine/),
      }),
    ]);
  });

  it("with Redis out of reach: the round that must keep a value there fails within the command timeout, as a 503", async () => {
    // Nothing listens on port 1; a refused connection fails every command at once.
    const engine = createRedisEngine({ url: "redis://127.0.0.1:1", commandTimeoutMs: 200 });
    shared.engines.push(engine);
    const { processes, computed, fetch } = deployment([engine]);
    const client = await connect(fetch);
    const error = await client.callTool({ name: "report", arguments: {} }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SdkHttpError);
    expect((error as SdkHttpError).status).toBe(503);
    expect(computed).toEqual(["process 0"]);
    expect((processes[0] as Process).logged).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/^tools\/call failed: EngineUnavailable/) }),
    );
  });
});
