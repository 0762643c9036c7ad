import { describe, expect, it } from "vitest";
import { createMemoryEngine } from "../engine/memory.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { confirmTool, deferred, until, WITH_TASKS } from "../testing/task-setup.test-util.js";
import type { Server } from "./servable.js";
import { createServer } from "./server.js";

// The tasks methods attacked: hostile ids and answers, races, handlers that never end, detach misused.

function client(server: Server) {
  return createTestClient(server, { capabilities: WITH_TASKS });
}

function askingServer(options: Parameters<typeof createServer>[0] = { name: "hostile", version: "1" }) {
  const server = createServer(options);
  server.tool(confirmTool());
  return server;
}

describe("hostile task ids and answers", () => {
  it("a taskId that is not a string, huge or __proto__ gets -32602, and the server lives on", async () => {
    const server = askingServer();
    const c = await client(server);
    const unknown = await rpcError(c.request("tasks/get", { taskId: crypto.randomUUID() }));
    for (const taskId of [42, { id: "x" }, ["a"], null, true]) {
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const error = await rpcError(c.request(method, { taskId, inputResponses: {} }));
        expect(error.code).toBe(-32602);
      }
    }
    for (const taskId of ["x".repeat(1 << 20), "__proto__", "constructor", "", "toString"]) {
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const error = await rpcError(c.request(method, { taskId, inputResponses: {} }));
        expect([error.code, error.message]).toEqual([unknown.code, unknown.message]);
      }
    }
    const { taskId } = await c.request("tools/call", { name: "confirm" });
    expect((await c.request("tasks/get", { taskId })).taskId).toBe(taskId);
  });

  it("inputResponses of hostile keys, deep or huge, or not an object, are refused or ignored; the task still waits", async () => {
    const server = askingServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "confirm" });
    await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "input_required",
    );
    for (const inputResponses of [null, [], "yes", 1]) {
      expect((await rpcError(c.request("tasks/update", { taskId, inputResponses }))).code).toBe(-32602);
    }
    let deep: unknown = {};
    for (let i = 0; i < 1000; i++) deep = { deep };
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "toString": 2}');
    expect((await rpcError(c.request("tasks/update", { taskId, inputResponses: { "elicit-1": deep } }))).code).toBe(
      -32602,
    );
    for (const inputResponses of [hostile, { big: "x".repeat(1 << 20) }]) {
      await c.request("tasks/update", { taskId, inputResponses });
      expect((await c.request("tasks/get", { taskId })).status).toBe("input_required");
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await c.request("tasks/update", {
      taskId,
      inputResponses: { "elicit-1": { action: "accept", content: { confirm: true } } },
    });
    const done = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ text: "confirmed true" }] });
  });

  it("an answer that is not an object is refused (-32602) before anything is taken: the task still asks", async () => {
    const server = askingServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "confirm" });
    const asking = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "input_required",
    );
    for (const answer of ["yes", 1, null, [], true]) {
      const error = await rpcError(c.request("tasks/update", { taskId, inputResponses: { "elicit-1": answer } }));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^Invalid params: inputResponses\["elicit-1"\] must be an object/);
      expect(await c.request("tasks/get", { taskId })).toEqual(asking);
    }
    await c.request("tasks/update", {
      taskId,
      inputResponses: { "elicit-1": { action: "accept", content: { confirm: false } } },
    });
    const done = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ text: "confirmed false" }] });
  });

  it("an answer of the wrong shape ends the task clearly (never hangs), naming what did not fit", async () => {
    for (const answer of [{ action: "accept", content: { confirm: "not a boolean" } }, { action: "maybe" }]) {
      const server = askingServer();
      const c = await client(server);
      const { taskId } = await c.request("tools/call", { name: "confirm" });
      await until(
        () => c.request("tasks/get", { taskId }),
        (t) => t.status === "input_required",
      );
      await c.request("tasks/update", { taskId, inputResponses: { "elicit-1": answer } });
      const ended = await until(
        () => c.request("tasks/get", { taskId }),
        (t) => t.status !== "working" && t.status !== "input_required",
      );
      const said = JSON.stringify(ended.error ?? ended.result);
      expect(said).not.toContain("Internal error");
      expect(said).toMatch(/elicit-1|confirm|action/);
    }
  });

  it("tasks/update on a terminal task is an ack and changes nothing", async () => {
    const server = askingServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "confirm" });
    await c.request("tasks/cancel", { taskId });
    const before = await c.request("tasks/get", { taskId });
    expect(
      await c.request("tasks/update", { taskId, inputResponses: { "elicit-1": { action: "accept" } } }),
    ).toMatchObject({
      resultType: "complete",
    });
    expect(await c.request("tasks/get", { taskId })).toEqual(before);
  });
});

describe("races and handlers that never end", () => {
  it("cancel racing completion: exactly one terminal status, and it stays", async () => {
    for (let round = 0; round < 20; round++) {
      const server = createServer({ name: "race", version: "1" });
      const gate = deferred();
      server.tool({
        name: "job",
        description: "Ends when let",
        task: "optional",
        handler: async () => {
          await gate.promise;
          return "finished";
        },
      });
      const c = await client(server);
      const { taskId } = await c.request("tools/call", { name: "job" });
      gate.resolve();
      await c.request("tasks/cancel", { taskId });
      const first = await c.request("tasks/get", { taskId });
      expect(["completed", "cancelled"]).toContain(first.status);
      if (first.status === "cancelled") expect(first).not.toHaveProperty("result");
      await new Promise((resolve) => setImmediate(resolve));
      expect(await c.request("tasks/get", { taskId })).toEqual(first);
    }
  });

  it("a handler that never settles keeps its lease until cancelled; the cancel frees it", async () => {
    const engine = createMemoryEngine();
    const running = new Set<string>();
    const { taskRunning, taskFinished } = engine;
    engine.taskRunning = (id) => {
      running.add(id);
      return taskRunning.call(engine, id);
    };
    engine.taskFinished = (id) => {
      running.delete(id);
      return taskFinished.call(engine, id);
    };
    const server = createServer({ name: "forever", version: "1", engine });
    server.tool({ name: "forever", description: "Never ends", task: "optional", handler: () => new Promise(() => {}) });
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "forever" });
    expect(running.has(taskId as string)).toBe(true);
    await c.request("tasks/cancel", { taskId });
    await until(
      async () => running.has(taskId as string),
      (held) => !held,
    );
  });
});

describe("ctx.detach() misused", () => {
  function detachServer(body: (ctx: { detach(): Promise<void> }) => Promise<string>) {
    const server = createServer({ name: "detach", version: "1" });
    server.tool({
      name: "job",
      description: "Detaches its own way",
      task: { support: "optional", detach: "manual" },
      handler: (_args, ctx) => body(ctx),
    });
    return server;
  }

  it("twice at once: one task, which completes", async () => {
    const server = detachServer(async (ctx) => {
      await Promise.all([ctx.detach(), ctx.detach()]);
      return "done once";
    });
    const c = await client(server);
    const created = await c.request("tools/call", { name: "job" });
    expect(created.resultType).toBe("task");
    const done = await until(
      () => c.request("tasks/get", { taskId: created.taskId }),
      (t) => t.status !== "working",
    );
    expect(done).toMatchObject({ status: "completed", result: { content: [{ text: "done once" }] } });
  });

  it("not awaited before returning: the task still gets the outcome", async () => {
    const returned = deferred();
    const server = detachServer(async (ctx) => {
      void ctx.detach();
      returned.resolve();
      return "returned at once";
    });
    // The store is slow: the task is made only after the handler has returned.
    const { createTask } = server.engine;
    server.engine.createTask = async (task) => {
      await returned.promise;
      await new Promise((resolve) => setImmediate(resolve));
      return createTask.call(server.engine, task);
    };
    const c = await client(server);
    const created = await c.request("tools/call", { name: "job" });
    const done =
      created.resultType === "task"
        ? await until(
            () => c.request("tasks/get", { taskId: created.taskId }),
            (t) => t.status !== "working",
          )
        : { status: "completed", result: created };
    expect(done).toMatchObject({ status: "completed", result: { content: [{ text: "returned at once" }] } });
  });

  it("after the handler returned: a no-op (no task left working)", async () => {
    const late = deferred<{ detach(): Promise<void> }>();
    const server = detachServer(async (ctx) => {
      late.resolve(ctx);
      return "sync answer";
    });
    const started: string[] = [];
    const c = await client(server);
    const reply = await c.request("tools/call", { name: "job" });
    expect(reply).toMatchObject({ content: [{ text: "sync answer" }] });
    const ctx = await late.promise;
    const { taskRunning } = server.engine;
    server.engine.taskRunning = (id) => {
      started.push(id);
      return taskRunning.call(server.engine, id);
    };
    await ctx.detach();
    expect(started).toEqual([]);
  });
});

describe("tasks per caller", () => {
  it("at most maxPerCaller running at once per caller (-32000 past it); one ending or cancelled frees its place", async () => {
    const server = createServer({ name: "bounded", version: "1", tasks: { maxPerCaller: 2 } });
    const gates: (() => void)[] = [];
    server.tool({
      name: "job",
      description: "Ends when let",
      task: "optional",
      handler: () =>
        new Promise<string>((resolve) => {
          gates.push(() => resolve("done"));
        }),
    });
    const as = (subject: string) =>
      createTestClient(server, {
        capabilities: WITH_TASKS,
        auth: { subject, scopes: [], token: subject },
      });
    const ada = await as("ada");
    const bob = await as("bob");
    const first = await ada.request("tools/call", { name: "job" });
    await ada.request("tools/call", { name: "job" });
    const refused = await rpcError(ada.request("tools/call", { name: "job" }));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toMatch(/at most 2/);
    // Another caller has places of its own.
    expect((await bob.request("tools/call", { name: "job" })).resultType).toBe("task");
    await ada.request("tasks/cancel", { taskId: first.taskId });
    const third = await ada.request("tools/call", { name: "job" });
    expect(third.resultType).toBe("task");
    for (const open of gates) open();
    await until(
      () => ada.request("tasks/get", { taskId: third.taskId }),
      (t) => t.status === "completed",
    );
    await until(
      async () =>
        await ada.exchange("tools/call", { name: "job" }).then(
          () => true,
          () => false,
        ),
      (made) => made,
    );
  });

  it("at most maxStoredPerCaller kept per caller, finished ones too (-32000 past it, no task made)", async () => {
    const server = createServer({ name: "kept", version: "1", tasks: { maxStoredPerCaller: 2 } });
    server.tool({ name: "quick", description: "Ends at once", task: "optional", handler: () => "done" });
    const engine = server.engine;
    const createTask = engine.createTask;
    const outcomes: unknown[] = [];
    engine.createTask = (task, limit) => {
      const outcome = createTask.call(engine, task, limit);
      outcomes.push(outcome);
      return outcome;
    };
    const as = (subject: string) =>
      createTestClient(server, { capabilities: WITH_TASKS, auth: { subject, scopes: [], token: subject } });
    const ada = await as("ada");
    for (let i = 0; i < 2; i++) {
      const made = await ada.request("tools/call", { name: "quick" });
      await until(
        () => ada.request("tasks/get", { taskId: made.taskId }),
        (t) => t.status === "completed",
      );
    }
    const refused = await rpcError(ada.request("tools/call", { name: "quick" }));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toMatch(/^Too many tasks kept for one caller \(at most 2\b.*try again later$/);
    expect(outcomes).toEqual(["created", "created", "full-for-caller"]);
    // Another caller has places of its own.
    expect((await (await as("bob")).request("tools/call", { name: "quick" })).resultType).toBe("task");
  });

  it("at most maxStored kept in all, whoever the callers (-32000 past it, no task made)", async () => {
    const server = createServer({ name: "kept-all", version: "1", tasks: { maxStored: 3 } });
    server.tool({ name: "quick", description: "Ends at once", task: "optional", handler: () => "done" });
    const engine = server.engine;
    const createTask = engine.createTask;
    const outcomes: unknown[] = [];
    engine.createTask = (task, limit) => {
      outcomes.push(limit && { max: limit.max, perCaller: limit.perCaller });
      const outcome = createTask.call(engine, task, limit);
      outcomes.push(outcome);
      return outcome;
    };
    const as = (subject: string) =>
      createTestClient(server, { capabilities: WITH_TASKS, auth: { subject, scopes: [], token: subject } });
    // The per-caller default is a tenth of it (at least one): each caller makes one.
    for (const subject of ["ada", "bob", "cy"]) {
      expect((await (await as(subject)).request("tools/call", { name: "quick" })).resultType).toBe("task");
    }
    const dee = await as("dee");
    const refused = await rpcError(dee.request("tools/call", { name: "quick" }));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toMatch(/^Too many tasks kept on this server \(at most 3\b.*try again later$/);
    const limit = { max: 3, perCaller: 1 };
    expect(outcomes).toEqual([limit, "created", limit, "created", limit, "created", limit, "full"]);
  });

  it("is checked at creation: a positive integer (NaN, as an unset environment variable gives, refused)", () => {
    expect(() => createServer({ name: "b", version: "1", tasks: { maxPerCaller: 0 } })).toThrow(/maxPerCaller/);
    expect(() => createServer({ name: "b", version: "1", tasks: { maxStoredPerCaller: 1.5 } })).toThrow(
      /maxStoredPerCaller/,
    );
    for (const maxStored of [Number.NaN, 0, -1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(() => createServer({ name: "b", version: "1", tasks: { maxStored } })).toThrow(/tasks\.maxStored must/);
    }
    expect(() => createServer({ name: "b", version: "1", tasks: { maxStoredPerCaller: Number.NaN } })).toThrow(
      /maxStoredPerCaller/,
    );
  });
});

describe("a task past its TTL", () => {
  it("stops its handler (ctx.signal aborts) and ends its lease; it is then unknown", async () => {
    const engine = createMemoryEngine();
    const finished = deferred<string>();
    const { taskFinished } = engine;
    engine.taskFinished = (id) => {
      finished.resolve(id);
      return taskFinished.call(engine, id);
    };
    const server = createServer({ name: "ttl", version: "1", engine });
    const aborted = deferred<unknown>();
    server.tool({
      name: "endless",
      description: "Runs until stopped",
      task: { support: "optional", ttlMs: 30 },
      handler: (_args, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(ctx.signal.reason);
            resolve("too late");
          }),
        ),
    });
    const c = await client(server);
    const created = await c.request("tools/call", { name: "endless" });
    expect(await aborted.promise).toMatchObject({ name: "AbortError", message: "The task expired" });
    expect(await finished.promise).toBe(created.taskId);
    await until(
      () =>
        c.exchange("tasks/get", { taskId: created.taskId }).then(
          () => false,
          () => true,
        ),
      (gone) => gone,
    );
  });
});

describe("a task the store took but could not start", () => {
  it("is failed and not held when following it fails; the call gets the error", async () => {
    const engine = createMemoryEngine();
    const made: string[] = [];
    const finished: string[] = [];
    const { createTask, taskFinished } = engine;
    engine.createTask = (task) => {
      made.push(task.id);
      return createTask.call(engine, task);
    };
    engine.taskFinished = (id) => {
      finished.push(id);
      return taskFinished.call(engine, id);
    };
    engine.followTask = () => {
      throw new Error("the channel is down");
    };
    const server = createServer({ name: "unstarted", version: "1", engine });
    server.tool({ name: "job", description: "Never starts", task: "optional", handler: () => "ran" });
    const c = await client(server);
    expect((await rpcError(c.request("tools/call", { name: "job" }))).code).toBe(-32603);
    expect(made).toHaveLength(1);
    expect(finished).toEqual(made);
    expect(engine.loadTask(made[0] as string)).toMatchObject({ status: "failed" });
  });
});
