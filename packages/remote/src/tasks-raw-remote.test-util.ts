import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A 2025-11-25 remote over node:http that writes its own task answers (tasks-hostile.test.ts): one tool, "job", that
// runs only as a task, whose tasks/get and tasks/result answers the test writes. No session; each POST answered JSON.

/** How the remote answers a task's requests: each a JSON-RPC reply body without `jsonrpc` and `id`. */
export interface Script {
  /** The task in tools/call's answer (taskId "t1" and status "working" unless given). */
  created?: Record<string, unknown>;
  /** The `n`th tasks/get's reply; `{ httpStatus }` answers with that HTTP status and no body. */
  get: (n: number) => Record<string, unknown>;
  result?: () => Record<string, unknown>;
}

export interface RawTaskRemote {
  url: string;
  /** The methods the remote was sent, in order. */
  seen: string[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

export async function rawTaskRemote(script: Script): Promise<RawTaskRemote> {
  const seen: string[] = [];
  let gets = 0;
  const now = new Date().toISOString();
  const answer = (method: string): Record<string, unknown> => {
    switch (method) {
      case "initialize":
        return {
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
            serverInfo: { name: "raw-tasks", version: "1" },
          },
        };
      case "tools/list":
        return {
          result: {
            tools: [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }],
          },
        };
      case "tools/call":
        return {
          result: {
            task: { taskId: "t1", status: "working", createdAt: now, lastUpdatedAt: now, ttl: null, ...script.created },
          },
        };
      case "tasks/get":
        return script.get(++gets);
      case "tasks/result":
        return script.result?.() ?? { result: { content: [] } };
      default:
        return { result: {} };
    }
  };
  const server: Server = createServer(async (request, response) => {
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const message = JSON.parse(await bodyOf(request)) as { id?: unknown; method: string; params?: object };
    seen.push(message.method);
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const { httpStatus, ...reply } = answer(message.method);
    // A reply with `httpStatus` is that status alone (a blip: a proxy's 502, a restart's 503).
    if (typeof httpStatus === "number") {
      response.writeHead(httpStatus).end();
      return;
    }
    const body = { jsonrpc: "2.0", id: message.id, ...reply };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
