// The shared suite's fixtures served over Streamable HTTP by the runtime this runs on (Bun or Deno; Node too):
//   --door serve   createHttpHandler mounted in the runtime's own server (Bun.serve, Deno.serve)
//   --door listen  Toolsmith's node:http door, through the runtime's node compatibility
// --fixtures main,paged,tasks (default all three), each on a port of its own; REDIS_URL puts main and paged on Redis.
// Says `listening {"main":url,...}` on stderr once every fixture is up; any other line there is a warning the
// servers logged (a runner fails on it). SIGTERM closes each fixture (sessions end, listen streams get their
// closing result), then the process exits.
import { parseArgs } from "node:util";
import { type LogEntry, levelPasses, type Server } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { createFixtureServer, type FixtureName, LIMIT_BYTES } from "@toolsmith/tests-transports/fixture-server";
import { createTasksFixture } from "@toolsmith/tests-transports/tasks-fixture";
import { createHttpHandler, type HttpHandler, listen } from "@toolsmith/transport-http";

// The few members of Bun's and Deno's servers this uses (neither runtime's types are installed for tsc).
interface BunGlobal {
  serve(options: { hostname: string; port: number; idleTimeout: number; fetch(request: Request): Promise<Response> }): {
    port: number;
    stop(closeActive?: boolean): Promise<void>;
  };
}
interface DenoGlobal {
  serve(
    options: { hostname: string; port: number; onListen(): void },
    handler: (request: Request) => Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
}
const { Bun, Deno } = globalThis as { Bun?: BunGlobal; Deno?: DenoGlobal };

const { values } = parseArgs({
  options: { door: { type: "string", default: "serve" }, fixtures: { type: "string", default: "main,paged,tasks" } },
});
const HOST = "127.0.0.1";

const logger = (entry: LogEntry) => {
  if (levelPasses(entry.level, "warning")) process.stderr.write(`${entry.level}: ${entry.message}\n`);
};

function fixture(name: FixtureName): Server {
  const engine = process.env.REDIS_URL ? { engine: createRedisEngine({ url: process.env.REDIS_URL }) } : {};
  if (name === "tasks") return createTasksFixture({ logger });
  return createFixtureServer({ logger, ...engine, ...(name === "paged" ? { pageSize: 2 } : {}) });
}

interface Served {
  url: string;
  close(): Promise<void>;
}

/** One fixture on the runtime's own server: createHttpHandler as its fetch handler. */
function serveNatively(handler: HttpHandler): Served {
  const url = (port: number) => `http://${HOST}:${port}/mcp`;
  if (Bun) {
    // idleTimeout 0: Bun otherwise cuts a connection idle 10 s, an SSE stream waiting for a notification included.
    const server = Bun.serve({ hostname: HOST, port: 0, idleTimeout: 0, fetch: handler });
    return { url: url(server.port), close: () => server.stop() };
  }
  if (Deno) {
    // onListen: Deno.serve otherwise says where it listens on stdout.
    const server = Deno.serve({ hostname: HOST, port: 0, onListen() {} }, handler);
    return { url: url(server.addr.port), close: () => server.shutdown() };
  }
  throw new Error("--door serve needs Bun.serve or Deno.serve: run this under bun or deno");
}

async function serve(name: FixtureName): Promise<Served> {
  const server = fixture(name);
  const maxBodyBytes = name === "tasks" ? undefined : LIMIT_BYTES;
  if (values.door === "listen") {
    const http = await listen(server, { host: HOST, port: 0, log: null, ...(maxBodyBytes ? { maxBodyBytes } : {}) });
    return { url: http.url, close: () => http.close() };
  }
  const handler = createHttpHandler(server, maxBodyBytes ? { maxBodyBytes } : {});
  const native = serveNatively(handler);
  return {
    url: native.url,
    async close() {
      handler.close();
      await native.close();
    },
  };
}

const names = (values.fixtures ?? "").split(",") as FixtureName[];
const served = await Promise.all(names.map(serve));
process.once("SIGTERM", async () => {
  await Promise.all(served.map((one) => one.close()));
  process.exit(0);
});
const urls = Object.fromEntries(names.map((name, index) => [name, served[index]?.url]));
process.stderr.write(`listening ${JSON.stringify(urls)}\n`);
