import { type Client, ProtocolError, type Tool } from "@modelcontextprotocol/client";
import { type CallToolResult, ErrorCode, isMcpError, McpError, type RequestContext } from "@toolsmith/core";
import { askForTask, asTask, TASKS_EXTENSION } from "./ask.js";
import { pause } from "./events.js";
import { describeFailure } from "./forward.js";
import type { Lane } from "./lane.js";
import type { Link } from "./link.js";
import { MAX_NOTE_CHARS } from "./notes.js";
import { AGAIN, plain, toolResult } from "./reply.js";

// A call made a task on the gateway run as a task on the remote (HTTP links only: the lane sends what the official
// client 2.4.0 will not, a 2026-07-28 task's requests): created there (what the remote asks first asked of the
// request), followed with tasks/get at the remote's poll interval (bounded) until it ends, its outcome the gateway
// task's. The remote task's questions are the gateway task's
// (2026-07-28: its inputRequests, answered with tasks/update; 2025-11-25: requests naming it, on any stream);
// cancelling the gateway task cancels the remote one. The gateway task's TTL bounds the whole wait.

/**
 * How a remote tool may run as a task on the gateway: as the remote lists it ("optional" for a 2026-07-28 remote,
 * which lists none), made a task only once the remote made one (`detach: "manual"`): what the remote asks or answers
 * before that is the request's.
 */
export interface TaskSupport {
  readonly support: "optional" | "required";
  readonly detach: "manual";
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const STATUSES = new Set([...TERMINAL, "working", "input_required"]);
// The remote's poll interval, kept within these: never a busy loop, never a long sleep past the task's end.
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 500;
// Looks at the remote task that may fail in a row (a blip) before the gateway task fails.
const MAX_MISSES = 3;
// The most rounds of questions a 2026-07-28 remote may ask before its task is made, as the client allows.
const MAX_ROUNDS = 10;

function modernOf(client: Client): boolean {
  const version = client.getNegotiatedProtocolVersion();
  return version !== undefined && version >= "2026";
}

/**
 * The task support a remote tool gets on the gateway: over HTTP, a 2025-11-25 remote's own (`execution.taskSupport`,
 * with `tasks.requests.tools.call` declared); "optional", made a task once the remote makes one, for every tool of a
 * 2026-07-28 remote declaring the tasks extension (which lists no support: such a remote answers at once a tool that
 * runs no task, and -32021 for one that needs a task, to a caller that asked for none).
 */
export function taskSupportOf(client: Client, tool: Tool, lane: Lane | undefined): TaskSupport | undefined {
  const version = client.getNegotiatedProtocolVersion();
  if (lane === undefined || version === undefined || version < "2025-11-25") return undefined;
  const caps = plain(client.getServerCapabilities()) ?? {};
  if (modernOf(client)) {
    return plain(caps.extensions)?.[TASKS_EXTENSION] === undefined
      ? undefined
      : { support: "optional", detach: "manual" };
  }
  if (plain(plain(plain(caps.tasks)?.requests)?.tools)?.call === undefined) return undefined;
  const support = plain((tool as { execution?: unknown }).execution)?.taskSupport;
  return support === "optional" || support === "required" ? { support, detach: "manual" } : undefined;
}

/**
 * A remote's JSON-RPC error as the gateway task's: its code kept when it is one (a whole number; any other is
 * -32000, which a caller's client can read), its message text bounded as a relayed note is.
 */
function remoteError(code: unknown, message: unknown, data: unknown): McpError {
  const kept = typeof code === "number" && Number.isSafeInteger(code) ? code : ErrorCode.ServerError;
  return new McpError(kept, String(message).slice(0, MAX_NOTE_CHARS), data);
}

/** A remote's JSON-RPC error as the gateway task's (remoteError), anything else -32000 naming the remote. */
function failure(link: Link, client: Client, error: unknown, timeout: number): McpError {
  if (ProtocolError.isInstance(error)) return remoteError(error.code, error.message, error.data);
  const { message, broken } = describeFailure(link, error, timeout);
  if (broken) link.drop(client);
  return new McpError(ErrorCode.ServerError, message);
}

function checked(link: Link, result: Record<string, unknown> | undefined): CallToolResult {
  const { resultType: _, _meta: meta, ...rest } = result ?? {};
  // The remote's related-task mark names its own task: the gateway's is added by core.
  const { "io.modelcontextprotocol/related-task": _related, ...ownMeta } = plain(meta) ?? {};
  const body = Object.keys(ownMeta).length > 0 ? { ...rest, _meta: ownMeta } : rest;
  try {
    const read = toolResult(body, false);
    if (read === AGAIN) throw new Error("not a result");
    return read;
  } catch (error) {
    throw new McpError(ErrorCode.ServerError, `${link.label}: ${(error as Error).message}`);
  }
}

/**
 * Run a call its caller asked to be a task as a task on the remote, in the request (`detach: "manual"`): what the
 * remote asks before it makes its task is the request's, a remote that answers at once answers the request (a
 * 2025-11-25 caller gets a task with that outcome), and once the remote made its task the gateway makes its own and
 * follows the remote's: its result, or its error thrown as an McpError.
 */
export async function runRemoteTask(
  link: Link,
  lane: Lane,
  tool: Tool,
  args: unknown,
  ctx: RequestContext,
  timeout: number,
): Promise<CallToolResult> {
  const client = await link.client().catch((error: unknown) => {
    throw new McpError(ErrorCode.ServerError, (error as Error).message);
  });
  const modern = modernOf(client);
  // In 2026-07-28 each request declares the extension (the remote refuses a task's requests otherwise).
  const declared = modern ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  // The link's client of the moment: one dropped after a failed look is replaced, so a blip is only a blip (a
  // remote that keeps its tasks across connections is followed on; one that does not says it lost the task).
  const current = () => link.client().catch(() => client);
  const send = async (method: string, params: Record<string, unknown>) => {
    const now = await current();
    return lane.request(now, method, params, ctx.signal, timeout, declared).catch((error: unknown) => {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw failure(link, now, error, timeout);
    });
  };
  const call = { name: tool.name, arguments: (args ?? {}) as Record<string, unknown> };
  const create = async () => {
    let created = await send("tools/call", modern ? call : { ...call, task: {} });
    // A 2026-07-28 remote may ask before it makes the task (a tool that detaches once it has its input): its rounds
    // are put to the request, and the call sent again with the answers.
    for (let round = 0; modern && created.resultType === "input_required"; round++) {
      if (round >= MAX_ROUNDS) {
        throw new McpError(ErrorCode.ServerError, `${link.label} asked more than ${MAX_ROUNDS} rounds`);
      }
      const inputResponses = await answerAll(link, plain(created.inputRequests) ?? {});
      const state = created.requestState;
      created = await send("tools/call", {
        ...call,
        inputResponses,
        ...(state === undefined ? {} : { requestState: state }),
      });
    }
    return created;
  };
  const created = await create();
  // A 2026-07-28 remote answers at once a tool that runs no task: so does the gateway, to a 2026-07-28 caller.
  if (modern && created.resultType !== "task") {
    // A 2025-11-25 caller that asked for a task is answered with one (its text says so): the result is the task's.
    if (ctx.era === "handshake") await ctx.detach();
    return checked(link, created);
  }
  let task = modern ? created : plain(created.task);
  const taskId = task?.taskId;
  let cancelled = false;
  const cancel = () => {
    if (cancelled || typeof taskId !== "string") return;
    cancelled = true;
    // Sent on a signal of its own: the task's may be the one that just aborted.
    const signal = new AbortController().signal;
    const sent = current().then((now) => lane.request(now, "tasks/cancel", { taskId }, signal, timeout, declared));
    void sent.catch(() => undefined);
  };
  // The remote made a task: so does the gateway (nothing when the call is one already). A gateway that refuses it
  // (the caller's bound on tasks, the store full) leaves no remote task running for nobody.
  await ctx.detach().catch((error: unknown) => {
    cancel();
    throw error;
  });
  return asTask(ctx, link.label, async (follow) => {
    if (typeof taskId !== "string" || typeof task?.status !== "string") {
      throw new McpError(ErrorCode.ServerError, `${link.label} answered the task's tools/call without a task`);
    }
    follow(taskId);
    ctx.signal.addEventListener("abort", cancel, { once: true });
    let ended = false;
    try {
      const outcome = await toTheEnd(task as Record<string, unknown>);
      ended = true;
      return outcome;
    } finally {
      ctx.signal.removeEventListener("abort", cancel);
      // However the following stopped short of the remote task's end (a signal aborted before the listener was
      // added, a reply the gateway could not read), the remote task is not left running.
      if (!ended && !TERMINAL.has(String(task?.status))) cancel();
    }

    async function toTheEnd(first: Record<string, unknown>): Promise<CallToolResult> {
      const asked = new Set<string>();
      let broken: McpError | undefined;
      let told: unknown;
      let step = 0;
      let misses = 0;
      task = first;
      for (;;) {
        if (broken) {
          cancel();
          throw broken;
        }
        if (typeof task.statusMessage === "string" && task.statusMessage !== told) {
          told = task.statusMessage;
          // Cut as a relayed progress message is (notes.ts): the remote's words, bounded.
          ctx.progress(++step, undefined, task.statusMessage.slice(0, MAX_NOTE_CHARS));
        }
        // A task in no status the text knows would be followed until its TTL: it fails now, saying why.
        if (!STATUSES.has(String(task.status))) {
          cancel();
          throw new McpError(ErrorCode.ServerError, `${link.label} gave task ${taskId} no known status`);
        }
        if (TERMINAL.has(String(task.status))) break;
        if (modern && task.status === "input_required") {
          for (const [key, request] of Object.entries(plain(task.inputRequests) ?? {})) {
            if (asked.has(key)) continue;
            asked.add(key);
            const question = plain(request) ?? {};
            askForTask(link.label, String(question.method), question.params, key)
              .then((answer) => send("tasks/update", { taskId, inputResponses: { [key]: answer } }))
              .catch((error: unknown) => {
                // send's failure is already the task's (failure() again would take it for a broken link).
                if (!ctx.signal.aborted) broken ??= isMcpError(error) ? error : failure(link, client, error, timeout);
              });
          }
        }
        const interval = Number(modern ? task.pollIntervalMs : task.pollInterval);
        await pause(
          Number.isFinite(interval) ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval)) : DEFAULT_POLL_MS,
          ctx.signal,
        );
        try {
          const seen = await send("tasks/get", { taskId });
          task = (modern ? seen : (plain(seen.task) ?? seen)) as Record<string, unknown>;
          misses = 0;
        } catch (error) {
          // The remote answered that it has no such task (lost, expired): no use asking again.
          if (ctx.signal.aborted || (error as McpError).code !== ErrorCode.ServerError || ++misses >= MAX_MISSES) {
            throw new McpError(ErrorCode.ServerError, `${link.label} lost task ${taskId}: ${(error as Error).message}`);
          }
        }
      }
      if (task.status === "cancelled") {
        throw new McpError(ErrorCode.ServerError, `${link.label} cancelled task ${taskId}`);
      }
      if (modern) {
        const error = plain(task.error);
        if (task.status === "failed" && error) {
          throw remoteError(error.code, error.message, error.data);
        }
        return checked(link, plain(task.result));
      }
      return checked(link, await send("tasks/result", { taskId }));
    }
  });
}

/** A 2026-07-28 round's questions put to the gateway task, each under its key: the answers by key. */
async function answerAll(link: Link, requests: Record<string, unknown>): Promise<Record<string, unknown>> {
  const entries = Object.entries(requests);
  const answers = await Promise.all(
    entries.map(([key, request]) => {
      const question = plain(request) ?? {};
      return askForTask(link.label, String(question.method), question.params, key);
    }),
  );
  return Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
}
