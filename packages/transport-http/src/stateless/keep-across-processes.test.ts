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
// log), and the call completes all the same.

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

async function connect(fetch: (url: string | URL, init?: RequestInit) => Promise<Response>): Promise<Client> {
  const client = new Client(
    { name: "keep", version: "1" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { publish: true } }));
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
