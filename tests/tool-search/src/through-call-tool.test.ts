import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { createServer, type Server } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withRawDispatch } from "./raw-dispatch.test-util.js";

// What a tool does beyond answering, reached through the search surface's call tool: asking the client, progress,
// cancellation and tasks (2025-11-25's own and the 2026-07-28 extension), driven by the official client over HTTP.

const ELICITATION = { elicitation: { form: {} } };

/** Events the tools tell the test of: started, stopped (by cancellation), each keyed. */
function events() {
  const waiting = new Map<string, () => void>();
  const told = new Map<string, Promise<void>>();
  const of = (key: string) => {
    let promise = told.get(key);
    if (promise === undefined) {
      promise = new Promise<void>((resolve) => waiting.set(key, resolve));
      told.set(key, promise);
    }
    return promise;
  };
  return {
    tell: (key: string) => {
      void of(key);
      waiting.get(key)?.();
    },
    heard: of,
  };
}

const heard = events();

function fixture(): Server {
  const server = createServer({ name: "through", version: "1", toolSearch: true, tasks: { pollIntervalMs: 50 } });
  server.tool({
    name: "ask_name",
    description: "Asks for a name, then greets",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
      return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
    },
  });
  server.tool({
    name: "count",
    description: "Counts to three, telling progress",
    handler: (_args, ctx) => {
      for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `at ${i}`);
      return "counted";
    },
  });
  server.tool({
    name: "wait",
    description: "Runs until cancelled",
    input: { key: z.string() },
    task: "optional",
    handler: ({ key }, ctx) =>
      new Promise<never>((_, reject) => {
        ctx.signal.addEventListener(
          "abort",
          () => {
            heard.tell(`${key} stopped`);
            reject(ctx.signal.reason);
          },
          { once: true },
        );
        heard.tell(`${key} started`);
      }),
  });
  server.tool({
    name: "report",
    description: "Says half way, then reports the task it ran as",
    task: "optional",
    handler: (_args, ctx) => {
      ctx.progress(1, 2, "half way");
      return `report ${ctx.task?.id ?? "none"}`;
    },
  });
  server.tool({
    name: "confirm",
    description: "As a task only: asks for a name, then greets",
    task: "required",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Your name?", schema: { name: z.string() } });
      return answer.action === "accept" ? `Hi, ${answer.content.name}` : `No name (${answer.action})`;
    },
  });
  return server;
}

const text = (result: unknown) => (result as { content: { text?: string }[] }).content[0]?.text;

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as const)("a tool called through call_tool, %s", (_era, mode) => {
  const modern = mode !== "legacy";
  let mcp: HttpServer;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    mcp = await listen(fixture(), { port: 0, log: null });
  });

  afterAll(async () => {
    for (const each of open.reverse()) await each.close();
    await mcp?.close();
  });

  async function plainClient(): Promise<{ client: Client; asked: unknown[] }> {
    const client = new Client(
      { name: "through", version: "1" },
      { capabilities: ELICITATION, versionNegotiation: { mode } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Grace" } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    open.push(client);
    return { client, asked };
  }

  async function tasksSession(): Promise<{ session: TaskEnabledSession; asked: unknown[]; errors: Error[] }> {
    const client = new Client(
      { name: "through", version: "1" },
      { capabilities: ELICITATION, versionNegotiation: { mode } },
    );
    const raw = withRawDispatch(new StreamableHTTPClientTransport(new URL(mcp.url)));
    await client.connect(raw.transport);
    // Questions are the session's to answer, tied to their task.
    client.removeRequestHandler("elicitation/create");
    const asked: unknown[] = [];
    const errors: Error[] = [];
    const options = {
      endpointId: "through",
      onError: (error: Error) => void errors.push(error),
      onInputRequest: async (request: { params?: unknown }, context: { scope: string }) => {
        asked.push({ scope: context.scope, params: request.params });
        return { action: "accept", content: { name: "Ada" } } as never;
      },
    };
    const session = modern
      ? createTaskSessionFromClient(client, {
          ...options,
          rawDispatch: raw.dispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "through", version: "1" },
            clientCapabilities: ELICITATION,
          },
        })
      : createTaskSessionFromClient(client, options);
    open.push(client, session);
    return { session, asked, errors };
  }

  it(`elicits through the client's handler (${modern ? "input_required rounds" : "a request to the client"})`, async () => {
    const { client, asked } = await plainClient();
    const result = await client.callTool({ name: "call_tool", arguments: { name: "ask_name" } });
    expect(text(result)).toBe("Hello, Grace!");
    expect(asked).toEqual([expect.objectContaining({ message: "What is your name?" })]);
  });

  it("tells the caller the tool's progress", async () => {
    const { client } = await plainClient();
    const seen: string[] = [];
    const result = await client.callTool(
      { name: "call_tool", arguments: { name: "count" } },
      { onprogress: ({ progress, total }) => void seen.push(`${progress}/${total}`) },
    );
    expect(text(result)).toBe("counted");
    expect(seen).toEqual(["1/3", "2/3", "3/3"]);
  });

  it("stops the tool when the caller cancels", async () => {
    const { client } = await plainClient();
    const key = crypto.randomUUID();
    const abort = new AbortController();
    const call = client
      .callTool({ name: "call_tool", arguments: { name: "wait", arguments: { key } } }, { signal: abort.signal })
      .then(
        () => "answered",
        () => "refused",
      );
    await heard.heard(`${key} started`);
    abort.abort();
    await heard.heard(`${key} stopped`);
    expect(await call).toBe("refused");
  });

  it("lists call_tool as able to run a task, and a found tool with how it runs (2025-11-25 lists it)", async () => {
    const { client } = await plainClient();
    const { tools } = await client.listTools();
    const call = tools.find((tool) => tool.name === "call_tool");
    const found = JSON.parse(
      text(await client.callTool({ name: "search_tools", arguments: { query: "task only name greet" } })) ?? "",
    ).tools[0];
    expect(found.name).toBe("confirm");
    if (modern) {
      expect(call?.execution).toBeUndefined();
      expect(found.execution).toBeUndefined();
    } else {
      expect(call?.execution).toEqual({ taskSupport: "optional" });
      expect(found.execution).toEqual({ taskSupport: "required" });
    }
  });

  it(`runs a tool as a task (${modern ? "the extension" : "2025-11-25's"}) and fetches its result`, async () => {
    const { session, errors } = await tasksSession();
    const execution = await session.callTool(
      "call_tool",
      { name: "report", arguments: {} },
      { task: { preference: "prefer" } },
    );
    expect(execution.kind).toBe("task");
    const taskId = execution.kind === "task" ? execution.handle.taskId : "";
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(outcome.status === "completed" && text(outcome.result)).toBe(`report ${taskId}`);
    expect(errors).toEqual([]);
  });

  it("answers a task's question through the session's input handler, and runs a task-only tool", async () => {
    const { session, asked, errors } = await tasksSession();
    const execution = await session.callTool("call_tool", { name: "confirm" }, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status === "completed" && text(outcome.result)).toBe("Hi, Ada");
    expect(asked).toEqual([
      expect.objectContaining({ scope: "task", params: expect.objectContaining({ message: "Your name?" }) }),
    ]);
    expect(errors).toEqual([]);
  });

  it("cancels a task: cancelled, its handler stopped", async () => {
    const { session, errors } = await tasksSession();
    const key = crypto.randomUUID();
    const execution = await session.callTool(
      "call_tool",
      { name: "wait", arguments: { key } },
      { task: { preference: "prefer" } },
    );
    expect(execution.kind).toBe("task");
    await heard.heard(`${key} started`);
    await execution.cancel();
    await heard.heard(`${key} stopped`);
    expect((await execution.settle()).outcome.status).toBe("cancelled");
    expect(errors).toEqual([]);
  });

  it("answers a task-only tool called without a task with the tool's own refusal", async () => {
    const { client } = await plainClient();
    const direct = await client.callTool({ name: "confirm", arguments: {} }).catch((error: Error) => error.message);
    const through = await client
      .callTool({ name: "call_tool", arguments: { name: "confirm" } })
      .catch((error: Error) => error.message);
    expect(through).toMatch(/confirm/);
    expect(through).toBe(direct);
  });
});
