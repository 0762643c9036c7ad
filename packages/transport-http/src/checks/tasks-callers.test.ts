import { once } from "node:events";
import { createServer as createNodeServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, LATEST_STATELESS_VERSION, type ServerOptions } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { taskOf } from "@toolsmith/core/engine-suite";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { afterEach, describe, expect, it } from "vitest";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { nodeListener } from "../doors/node-listener.js";
import { headers2026, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "../sessions/shared-redis.test-util.js";

// The tasks' per-caller limits count an anonymous caller by its address, as sessions and streams do: one address
// that fills its share (running here, or stored over every process) does not stop another.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { extensions: { [TASKS]: {} } },
};
const LIMITS = { maxPerCaller: 2, maxStoredPerCaller: 3 };

const { redis, engines, handlers } = sharedRedis();

interface Reply {
  result?: { taskId: string; status: string };
  error?: { code: number; message: string };
}

/** A process of the server: `hold` runs until the test releases it, `quick` ends at once. */
function serve(
  options: HttpOptions,
  engine?: Engine,
  tasks: ServerOptions["tasks"] = LIMITS,
): { handle: HttpHandler; release: () => void } {
  if (engine) engines.push(engine);
  const server = createServer({ name: "task-callers", version: "1", tasks, ...(engine ? { engine } : {}) });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.tool({
    name: "hold",
    description: "Waits for the test",
    task: "optional",
    handler: () => gate.then(() => "held"),
  });
  server.tool({ name: "quick", description: "Done at once", task: "optional", handler: () => "quick" });
  const handle = createHttpHandler(server, options);
  handlers.push(handle);
  return { handle, release };
}

let ids = 0;
const callBody = (name: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: ++ids, method: "tools/call", params: { name, _meta: META } });

describe("task limits per anonymous caller, by address", () => {
  const servers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of servers.splice(0)) await close();
  });

  // Over node:http, from a given loopback source address (Linux routes all of 127.0.0.0/8 to lo).
  async function start(): Promise<{ call: (from: string, tool: string) => Promise<Reply> }> {
    const { handle, release } = serve({});
    const server = createNodeServer(nodeListener(handle));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const { port } = server.address() as AddressInfo;
    const call = async (from: string, tool: string): Promise<Reply> => {
      const headers = headers2026("tools/call", tool);
      const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers, localAddress: from });
      req.end(callBody(tool));
      const [response] = (await once(req, "response")) as [IncomingMessage];
      let text = "";
      for await (const chunk of response) text += chunk;
      return JSON.parse(text) as Reply;
    };
    return { call };
  }

  it("running: one address at maxPerCaller is refused (-32000); another address still starts one", async () => {
    const { call } = await start();
    for (let i = 0; i < LIMITS.maxPerCaller; i++)
      expect((await call("127.0.0.2", "hold")).result?.status).toBe("working");
    const refused = await call("127.0.0.2", "hold");
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toMatch(/^Too many tasks running for one caller/);
    expect((await call("127.0.0.3", "hold")).result?.status).toBe("working");
  });

  it("stored: one address at maxStoredPerCaller is refused (-32000); another address still makes one", async () => {
    const { call } = await start();
    for (let i = 0; i < LIMITS.maxStoredPerCaller; i++) {
      expect((await call("127.0.0.2", "quick")).result?.taskId).toEqual(expect.any(String));
    }
    const refused = await call("127.0.0.2", "quick");
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toMatch(/^Too many tasks kept for one caller/);
    expect((await call("127.0.0.3", "quick")).result?.taskId).toEqual(expect.any(String));
  });
});

describe("task limits per anonymous caller, by address, on Redis across processes", () => {
  it("the stored bound counts one address over every process and no other; the address comes from remoteAddress", async () => {
    const namespace = `task-callers-${crypto.randomUUID()}`;
    const options: HttpOptions = { remoteAddress: (req) => req.headers.get("x-client") ?? undefined };
    const a = serve(options, createRedisEngine({ url: redis.url, namespace }));
    const b = serve(options, createRedisEngine({ url: redis.url, namespace }));
    const call = async (process: HttpHandler, from: string): Promise<Reply> => {
      const response = await process(post(callBody("quick"), headers2026("tools/call", "quick", { "x-client": from })));
      return (await response.json()) as Reply;
    };
    const made: string[] = [];
    for (const process of [a.handle, b.handle, a.handle]) {
      const reply = await call(process, "10.0.0.1");
      made.push(reply.result?.taskId as string);
    }
    expect(made.every((id) => typeof id === "string")).toBe(true);
    const refused = await call(b.handle, "10.0.0.1");
    expect(refused.error?.message).toMatch(/^Too many tasks kept for one caller \(at most 3\b/);
    // Another anonymous address, on either process, is a caller of its own.
    expect((await call(b.handle, "10.0.0.2")).result?.taskId).toEqual(expect.any(String));
    expect((await call(a.handle, "10.0.0.2")).result?.taskId).toEqual(expect.any(String));
  });
});

describe("the bound on stored tasks in all, on Redis across processes", () => {
  it("holds over every process and every address: past it any caller is refused (-32000), nothing is stored", async () => {
    const namespace = `task-callers-${crypto.randomUUID()}`;
    const options: HttpOptions = { remoteAddress: (req) => req.headers.get("x-client") ?? undefined };
    const tasks = { maxStored: 3, maxStoredPerCaller: 2 };
    const a = serve(options, createRedisEngine({ url: redis.url, namespace }), tasks);
    const b = serve(options, createRedisEngine({ url: redis.url, namespace }), tasks);
    const call = async (process: HttpHandler, from: string): Promise<Reply> => {
      const response = await process(post(callBody("quick"), headers2026("tools/call", "quick", { "x-client": from })));
      return (await response.json()) as Reply;
    };
    // Two addresses, each within its own bound, fill the store between them.
    for (const [process, from] of [
      [a, "10.0.0.1"],
      [b, "10.0.0.1"],
      [b, "10.0.0.2"],
    ] as const) {
      expect((await call(process.handle, from)).result?.taskId).toEqual(expect.any(String));
    }
    for (const [process, from] of [
      [a, "10.0.0.2"],
      [b, "10.0.0.3"],
      [a, "10.0.0.1"],
    ] as const) {
      const refused = await call(process.handle, from);
      expect(refused.error?.code).toBe(-32000);
      // The caller at its own bound is told that first.
      const whose = from === "10.0.0.1" ? "for one caller \\(at most 2" : "on this server \\(at most 3";
      expect(refused.error?.message).toMatch(new RegExp(`^Too many tasks kept ${whose}\\b.*try again later$`));
    }
    // Nothing was stored for the refused calls: with room for one more in all, exactly one more fits.
    const probe = createRedisEngine({ url: redis.url, namespace });
    engines.push(probe);
    await probe.start({ name: "task-callers" });
    const limit = { max: 4, perCaller: 4, caller: "address 10.0.0.9" };
    expect(await probe.createTask(taskOf(), limit)).toBe("created");
    expect(await probe.createTask(taskOf(), limit)).toBe("full");
  });
});

describe("task limits per anonymous caller, by network", () => {
  it("every address of one IPv6 /56 is one caller (one client may hold a whole /64); IPv4 mapped or not is one", async () => {
    const { handle } = serve({ remoteAddress: (req) => req.headers.get("x-client") ?? undefined });
    const call = async (from: string): Promise<Reply> => {
      const response = await handle(post(callBody("quick"), headers2026("tools/call", "quick", { "x-client": from })));
      return (await response.json()) as Reply;
    };
    for (const from of ["2001:db8:77::1", "2001:db8:77:ff::2", "2001:DB8:0077::3%eth0"]) {
      expect((await call(from)).result?.taskId).toEqual(expect.any(String));
    }
    const refused = await call("2001:db8:77:1::9");
    expect(refused.error?.message).toMatch(/^Too many tasks kept for one caller \(at most 3\b/);
    expect((await call("2001:db8:78::1")).result?.taskId).toEqual(expect.any(String));
    for (const from of ["10.0.0.1", "::ffff:10.0.0.1", "10.0.0.1"]) {
      expect((await call(from)).result?.taskId).toEqual(expect.any(String));
    }
    expect((await call("::ffff:10.0.0.1")).error?.code).toBe(-32000);
  });
});
