import type { Client } from "@modelcontextprotocol/client";
import {
  type ApplicationInputRequest,
  createTaskSessionFromClient,
  type ResolvedInputExchangeContext,
  resultFromTaskOutcome,
  type TaskEnabledSession,
  taskViewFromExecutionEvent,
} from "@modelcontextprotocol/ext-tasks/client";
import type { TaskId } from "@modelcontextprotocol/ext-tasks/core";
import { afterAll, describe, expect, it } from "vitest";
import { type Peer, type SuiteContext, until } from "./peer.js";
import { RawDispatchTransport } from "./raw-dispatch.js";
import { SameChunkTransport } from "./same-chunk.js";

// Tasks driven by the official ext-tasks client (0.2, generation-agnostic): 2025-11-25's own ("v1") in the
// handshake era, the tasks extension ("v2") in 2026-07-28; one fixture and one handler API serve both.

const ELICITATION = { elicitation: { form: {} } };

/** Any JSON, as the SDK client's request() wants a schema for what it does not know. */
const anyResult = {
  "~standard": { version: 1, vendor: "suite", validate: (value: unknown) => ({ value }) },
} as const;

interface TasksPeer {
  peer: Peer;
  session: TaskEnabledSession;
  asked: { params: Record<string, unknown>; scope: string; taskId?: string }[];
  errors: Error[];
}

export function taskCases(ctx: SuiteContext): void {
  const { modern, another, target } = ctx;
  const open: TaskEnabledSession[] = [];
  afterAll(async () => {
    await Promise.all(open.map((session) => session.close()));
  });

  // A client of the tasks fixture whose questions only the ext-tasks session answers; in 2026-07-28 with the raw
  // request path the extension's task shapes need. `sameChunk`: it reads the reply that announces its first
  // 2025-11-25 task in one chunk with what the server writes next (same-chunk.ts; one ordered stream only).
  async function tasksPeer(options: { sameChunk?: boolean } = {}): Promise<TasksPeer> {
    const transport = target.transport("tasks");
    const raw = new RawDispatchTransport(options.sameChunk ? new SameChunkTransport(transport) : transport);
    const peer = await another({
      fixture: "tasks",
      capabilities: ELICITATION,
      transport: raw,
      setup: (client: Client) => client.removeRequestHandler("elicitation/create"),
    });
    const asked: TasksPeer["asked"] = [];
    const errors: Error[] = [];
    const sessionOptions = {
      endpointId: "transport-suite",
      onError: (error: Error) => {
        errors.push(error);
      },
      onInputRequest: async (request: ApplicationInputRequest, context: ResolvedInputExchangeContext) => {
        asked.push({
          params: (request.params ?? {}) as Record<string, unknown>,
          scope: context.scope,
          ...(context.taskId === undefined ? {} : { taskId: context.taskId }),
        });
        return { action: "accept", content: { name: "Grace" } } as never;
      },
    };
    const session = modern
      ? createTaskSessionFromClient(peer.client, {
          ...sessionOptions,
          rawDispatch: raw.dispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "transport-suite", version: "1.0.0" },
            clientCapabilities: ELICITATION,
          },
        })
      : createTaskSessionFromClient(peer.client, sessionOptions);
    open.push(session);
    return { peer, session, asked, errors };
  }

  const text = (result: unknown) => ((result as { content: { text?: string }[] }).content[0] as { text?: string }).text;

  describe("tasks (the official ext-tasks client)", () => {
    it(`creates a task (${modern ? "the extension" : "2025-11-25's"}), follows it, fetches its result; listed in 2025-11-25`, async () => {
      const { peer, session, errors } = await tasksPeer();
      const key = crypto.randomUUID();
      const execution = await session.callTool("report", { key }, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const seen: string[] = [];
      let released = false;
      const { outcome } = await execution.settle({
        onEvent: async (event) => {
          const view = taskViewFromExecutionEvent(event);
          if (view !== undefined) seen.push(`${view.status}${view.statusMessage ? `: ${view.statusMessage}` : ""}`);
          if (view?.statusMessage === "half way" && !released) {
            released = true;
            await peer.client.callTool({ name: "release", arguments: { key } });
          }
        },
      });
      expect(outcome.status).toBe("completed");
      expect(text(resultFromTaskOutcome(outcome))).toBe(`report ${key}`);
      expect(seen).toContain("working: half way");
      if (!modern && execution.kind === "task") {
        const page = await session.listTasks();
        expect(page.tasks.map((task) => task.taskId)).toContain(execution.handle.taskId);
      }
      expect(errors).toEqual([]);
    });

    // ext-tasks answers `cancel` to a question it cannot tie to a task it knows; over one ordered stream the question
    // is read in the same chunk as the reply that announces the task, the race a loaded pipe makes: the server asks
    // only once the client has named the task, so the client holds it when the question comes.
    it("answers the task's question through the client's input handler, tied to the task", async () => {
      const { session, asked, errors } = await tasksPeer({ sameChunk: !modern && target.oneStream === true });
      const execution = await session.callTool("confirm", {}, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(text(resultFromTaskOutcome(outcome))).toBe("Hello, Grace!");
      const taskId = execution.kind === "task" ? execution.handle.taskId : ("" as TaskId);
      expect(asked).toEqual([
        expect.objectContaining({
          scope: "task",
          taskId,
          params: expect.objectContaining({ message: "What is your name?" }),
        }),
      ]);
      expect(errors).toEqual([]);
    });

    it("cancels a task: cancelled in the store, its handler stopped", async () => {
      const { session, errors } = await tasksPeer();
      const execution = await session.callTool("forever", {});
      expect(execution.kind).toBe("task");
      const taskId = execution.kind === "task" ? execution.handle.taskId : ("" as TaskId);
      await execution.cancel();
      expect((await execution.settle()).outcome.status).toBe("cancelled");
      expect((await session.task(taskId).snapshot()).status).toBe("cancelled");
      expect(errors).toEqual([]);
    });

    it(
      modern
        ? "a tool's error result completes the task with that result"
        : "a tool's error result fails the task (the text), and tasks/result is still that result",
      async () => {
        const { peer, session } = await tasksPeer();
        const execution = await session.callTool("broken", {}, { task: { preference: "prefer" } });
        const taskId = execution.kind === "task" ? execution.handle.taskId : ("" as TaskId);
        const { outcome } = await execution.settle();
        if (modern) {
          expect(outcome.status).toBe("completed");
          expect(resultFromTaskOutcome(outcome)).toMatchObject({ isError: true });
          return;
        }
        // The client's v1 driver reads a failed task's statusMessage and never asks tasks/result; the text says
        // tasks/result returns exactly what the call would have: the tool's error result.
        expect(outcome.status).toBe("failed");
        expect(outcome.status === "failed" && outcome.error.message).toBe("it broke");
        const result = await peer.client.request({ method: "tasks/result", params: { taskId } }, anyResult);
        expect(result).toMatchObject({
          isError: true,
          content: [{ type: "text", text: "it broke" }],
          _meta: { "io.modelcontextprotocol/related-task": { taskId } },
        });
      },
    );

    it("answers another client's task id as a missing one", async () => {
      const first = await tasksPeer();
      const second = await tasksPeer();
      const execution = await first.session.callTool("forever", {});
      const taskId = execution.kind === "task" ? execution.handle.taskId : ("" as TaskId);
      const missing = crypto.randomUUID() as TaskId;
      const failure = async (session: TaskEnabledSession, id: TaskId) =>
        session
          .task(id)
          .snapshot()
          .then(
            () => "found",
            (error: unknown) => String((error as { code?: number }).code ?? (error as Error).message),
          );
      // Over HTTP without sign-in, a 2025-11-25 task is its session's; in 2026-07-28 an anonymous caller's tasks
      // are anyone's who holds the id (the extension binds them to a principal only).
      if (!modern || !target.ownServer) {
        expect(await failure(second.session, taskId)).toBe(await failure(second.session, missing));
      }
      await execution.cancel();
      await until(
        async () => (await first.session.task(taskId).snapshot()).status === "cancelled",
        "the cancelled task",
      );
    });
  });
}
