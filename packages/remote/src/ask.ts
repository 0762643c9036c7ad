import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Client,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  type Transport,
} from "@modelcontextprotocol/client";
import { isMcpError, type McpError, type RequestContext, type SampleRequest } from "@toolsmith/core";
import { InputRequired, type Middleware } from "@toolsmith/core/middleware";
import { plain } from "./reply.js";

// The remote's questions to the client (elicitation, sampling, roots), put to the real client whose call caused them
// and answered back. A forwarded request runs inside its caller (an AsyncLocalStorage set by `asking`, the module's
// middleware), so what the official client does on that request's behalf runs there too: a question on the call's
// own HTTP response stream (handshake era), and the rounds of a 2026-07-28 `input_required` answer. Connecting runs
// outside every caller, so the standalone GET stream and a stdio pipe belong to none. On stdio a response is replayed
// inside the caller that sent its request (`Ties`). A handshake-era question on stdio cannot say which request it
// relates to: it is refused, never guessed, unless the remote is trusted with `untiedQuestions: "sole-call"` (then it
// goes to the one call in flight when exactly one is, as of where the question stands in the stream, and no cancelled
// call may still be running there).

/** What becomes of a question that cannot say which call it belongs to (a handshake-era remote on stdio). */
export type UntiedQuestions = "refuse" | "sole-call";

/** The gateway request a forwarded call serves. */
interface Caller {
  readonly ctx: RequestContext;
  readonly abort: (reason: unknown) => void;
  done: boolean;
  /** Questions put to this caller so far. */
  asked: number;
  /**
   * Set when a question ended the request, what the operation then throws: 2026-07-28 `input_required`, or core's
   * refusal of a 2026-07-28 caller (a capability it lacks, an answer that is not an object).
   */
  ends: InputRequired | McpError | undefined;
  /** The keys of the 2026-07-28 questions put to this caller in this run of the request. */
  readonly keys: Set<string>;
  /** Whether the request asked for a task (2025-11-25's `params.task`, or the tasks extension declared). */
  readonly asksTask: boolean;
}

/** The tasks extension's name (SEP-2663), as a 2026-07-28 request declares it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

function asksTask(operation: Parameters<Middleware>[0]): boolean {
  if (operation.method !== "tools/call") return false;
  if (operation.ctx.era === "handshake") return plain(operation.params.task) !== undefined;
  return plain(plain(operation.ctx.clientCapabilities.extensions)?.[TASKS_EXTENSION]) !== undefined;
}

/** Whether the request this runs in asked for a task (tasks.ts: a remote task is made only for one that did). */
export function callerAsksTask(): boolean {
  return callers.getStore()?.asksTask === true;
}

/** The most questions one call may put to its caller: a remote cannot flood a client through the gateway. */
export const MAX_QUESTIONS = 100;

const callers = new AsyncLocalStorage<Caller>();

/**
 * The sole call in flight (`Ties.only`) where a request of the remote's stands in the stream. The client reads a
 * whole chunk before any handler runs: judged in the handler, a reply later in the chunk would already be taken off,
 * and a question asked while two calls ran could go to the one left, which may not be its asker.
 */
const soleWhenRead = new AsyncLocalStorage<Caller | undefined>();

/** What the link declares to the remote: every question is put to the caller, who may lack the capability. */
export const ASKED: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** Middleware of the remote's module: what the operation sends the remote, and its questions, run as its caller. */
export const asking: Middleware = (operation, next) => {
  const caller: Caller = {
    ctx: operation.ctx,
    abort: (reason) => operation.abort(reason),
    done: false,
    asked: 0,
    ends: undefined,
    keys: new Set(),
    asksTask: asksTask(operation),
  };
  return callers.run(caller, async () => {
    try {
      const result = await next();
      if (caller.ends) throw caller.ends;
      return result;
    } catch (error) {
      // The forwarded request failed because it was cut for the caller's question: answered as the question ended it.
      throw caller.ends ?? error;
    } finally {
      caller.done = true;
    }
  });
};

/** The gateway tasks that follow a remote task, by the remote's label and the remote task's id (tasks.ts). */
const followed = new Map<string, Caller>();
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * Run a task's work (tasks.ts) as its own caller: what it sends the remote, and the questions of the remote task it
 * follows, are put to the gateway task (its context waits for the answer). `follow(id)` ties a handshake-era
 * question naming remote task `id` (its related-task `_meta`, on whatever stream it comes) to this task.
 */
export async function asTask<T>(
  ctx: RequestContext,
  label: string,
  run: (follow: (remoteTaskId: string) => void) => Promise<T>,
): Promise<T> {
  const caller: Caller = {
    ctx,
    abort: () => undefined,
    done: false,
    asked: 0,
    ends: undefined,
    keys: new Set(),
    asksTask: true,
  };
  const keys: string[] = [];
  const follow = (remoteTaskId: string) => {
    const key = `${label}\n${remoteTaskId}`;
    keys.push(key);
    followed.set(key, caller);
  };
  try {
    return await callers.run(caller, () => run(follow));
  } finally {
    caller.done = true;
    for (const key of keys) followed.delete(key);
  }
}

/** The caller of the gateway task that follows the remote task a handshake-era question names, if any. */
function relatedCaller(label: string, params: unknown): Caller | undefined {
  const related = plain(plain(plain(params)?._meta)?.[RELATED_TASK]);
  return typeof related?.taskId === "string" ? followed.get(`${label}\n${related.taskId}`) : undefined;
}

/** `run` outside every caller: a connection made on a call's behalf must not belong to that call. */
export function outsideCalls<T>(run: () => T): T {
  return callers.exit(run);
}

/** The requests a stdio link has in flight and whom each was sent for. */
export class Ties {
  readonly #sent = new Map<string, Caller | undefined>();
  // A request cancelled before its answer may still run on the remote and ask later: no call is the sole one again.
  #cancelled = false;

  /** Record each request sent and replay each response inside the caller its request was sent for. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
      if (typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number")) {
        this.#sent.set(keyOf(m.id), callers.getStore());
      } else if (m.method === "notifications/cancelled") {
        const id = m.params?.requestId;
        if ((typeof id === "string" || typeof id === "number") && this.#sent.delete(keyOf(id))) this.#cancelled = true;
      }
      return send(message, options);
    };
    const received = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { id?: unknown; method?: unknown };
      if (m.method !== undefined || (typeof m.id !== "string" && typeof m.id !== "number")) {
        // The client starts a request's handler within this call: a question sees the calls in flight as of here.
        if (m.method !== undefined && m.id !== undefined) {
          return soleWhenRead.run(this.#only(), () => received?.(message, extra));
        }
        return received?.(message, extra);
      }
      const key = keyOf(m.id);
      const caller = this.#sent.get(key);
      this.#sent.delete(key);
      if (caller === undefined) return callers.exit(() => received?.(message, extra));
      return callers.run(caller, () => received?.(message, extra));
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      this.#sent.clear();
      closed?.();
    };
  }

  /** The caller of the one request in flight, when exactly one is, a caller sent it and none was cancelled. */
  #only(): Caller | undefined {
    if (this.#cancelled || this.#sent.size !== 1) return undefined;
    const [caller] = this.#sent.values();
    return caller;
  }
}

// An id as the client reads a reply's (as a number: a remote may write 3 as "3"), so that every reply the client takes
// as its request's ends that request here too; one left behind would leave no call the sole one for ever after.
function keyOf(id: string | number): string {
  const n = Number(id);
  return Number.isNaN(n) ? `s${id}` : `n${n}`;
}

// What the official client answers for a question it has no handler or mode for.
const NOT_FOUND = (): ProtocolError => new ProtocolError(ProtocolErrorCode.MethodNotFound, "Method not found");

// A 2026-07-28 caller is not checked here: core refuses a question it has no capability for with -32021, which ends
// the caller's request as it would end one of the gateway's own tools.
function checkElicitation(ctx: RequestContext, mode: "form" | "url"): void {
  if (ctx.era !== "handshake") return;
  const declared = plain(ctx.clientCapabilities.elicitation);
  if (declared === undefined) throw NOT_FOUND();
  const url = plain(declared.url) !== undefined;
  const form = plain(declared.form) !== undefined || !url;
  if (mode === "url" ? !url : !form) {
    const name = mode === "url" ? "URL" : "form";
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Client does not support ${name}-mode elicitation requests`,
    );
  }
}

async function elicit(
  ctx: RequestContext,
  params: Record<string, unknown>,
  key: Key,
): Promise<Record<string, unknown>> {
  const mode = params.mode === "url" ? "url" : "form";
  checkElicitation(ctx, mode);
  const message = String(params.message);
  if (mode === "url") {
    const answer = await ctx.elicit({ mode: "url", message, url: String(params.url), ...key });
    return { action: answer.action };
  }
  const answer = await ctx.elicit({ message, requestedSchema: plain(params.requestedSchema) ?? {}, ...key });
  return answer.action === "accept" ? { action: "accept", content: answer.content } : { action: answer.action };
}

const SAMPLED = [
  "messages",
  "maxTokens",
  "systemPrompt",
  "modelPreferences",
  "includeContext",
  "temperature",
  "stopSequences",
  "metadata",
  "tools",
  "toolChoice",
] as const;

async function sample(
  ctx: RequestContext,
  params: Record<string, unknown>,
  key: Key,
): Promise<Record<string, unknown>> {
  if (ctx.era === "handshake" && plain(ctx.clientCapabilities.sampling) === undefined) throw NOT_FOUND();
  const request: Record<string, unknown> = { ...key };
  for (const name of SAMPLED) if (params[name] !== undefined) request[name] = params[name];
  return { ...(await ctx.sample(request as unknown as SampleRequest)) };
}

async function roots(
  ctx: RequestContext,
  _params: Record<string, unknown>,
  key: Key,
): Promise<Record<string, unknown>> {
  if (ctx.era === "handshake" && plain(ctx.clientCapabilities.roots) === undefined) throw NOT_FOUND();
  return { roots: await ctx.roots(key) };
}

/** The key a question is put to a 2026-07-28 caller under (keyFor). */
type Key = { key?: string };

type Ask = (ctx: RequestContext, params: Record<string, unknown>, key: Key) => Promise<Record<string, unknown>>;

/** The longest key of the remote's kept as the caller's key. */
const MAX_KEY_CHARS = 128;

/**
 * A 2026-07-28 remote's question comes with its key in the remote's `inputRequests` (the client gives it as the
 * request's id): the caller is asked under that key, so the gateway changes nothing a client may rely on. A key
 * already used in this run (the remote asking again under it in a later round) gets `key~2`…; a question without a
 * key the gateway can keep (none, empty, past the bound) is named as core would name it (`elicit-1`, …). Every
 * question of the run is so named here, never by core: two questions under one key would both get the one answer.
 */
function keyFor(caller: Caller, remoteKey: string | undefined, prefix: string): Key {
  const kept = remoteKey !== undefined && remoteKey.length > 0 && remoteKey.length <= MAX_KEY_CHARS;
  let key = kept ? remoteKey : `${prefix}-1`;
  for (let n = 2; caller.keys.has(key); n++) key = kept ? `${remoteKey}~${n}` : `${prefix}-${n}`;
  caller.keys.add(key);
  return { key };
}

// One question: its caller found (or refused), asked, and whatever goes wrong answered as a JSON-RPC error.
async function answer(
  ties: Ties | undefined,
  label: string,
  ask: Ask,
  params: unknown,
  remoteKey: string | undefined,
  prefix: string,
): Promise<never> {
  const tied = relatedCaller(label, params) ?? callers.getStore();
  // With `ties` (sole-call), an untied question goes to the sole call in flight when it was read, if there was one.
  const caller = tied ?? (ties ? soleWhenRead.getStore() : undefined);
  if (caller === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `${label} asked outside any call it serves (or where it cannot tell which one): ask within the call`,
    );
  }
  if (caller.done || caller.ctx.signal.aborted) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "The call this question belongs to has ended");
  }
  caller.asked += 1;
  if (caller.asked > MAX_QUESTIONS) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `More than ${MAX_QUESTIONS} questions in one call`);
  }
  const { _meta, ...rest } = plain(params) ?? {};
  try {
    return (await ask(caller.ctx, rest, keyFor(caller, remoteKey, prefix))) as never;
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    // A 2026-07-28 caller is never sent a request: core's refusal is of the caller itself (a capability it lacks,
    // -32021, or an answer in its inputResponses that is not an object, -32602), and ends its request as it would
    // end one of the gateway's own tools.
    const refused = isMcpError(error) && caller.ctx.era !== "handshake";
    if (error instanceof InputRequired || refused) {
      caller.ends = error as InputRequired | McpError;
      // 2026-07-28 toward the caller: its request is answered input_required and runs again, with this answer, on
      // the retry; the forwarded call is cancelled now, so the remote does no more work on a call that is over. A
      // sole call is left to end on this error instead: a cancelled call would leave no call the sole one again.
      // The cut waits one turn of the event loop, so that questions read with this one join the same round.
      if (tied) setImmediate(() => caller.abort(new Error("the caller was asked; the call runs again on its retry")));
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "The call this question belongs to has ended");
    }
    if (isMcpError(error)) throw new ProtocolError(error.code, error.message, error.data);
    const message = error instanceof Error ? error.message : String(error);
    // A TypeError is a question core refuses to put (a form that is not a flat object of primitives).
    const code = error instanceof TypeError ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
    throw new ProtocolError(code, message);
  }
}

// Each question's method: how it is asked, and the prefix core would name it under.
const ASKS: Record<string, { ask: Ask; prefix: string }> = {
  "elicitation/create": { ask: elicit, prefix: "elicit" },
  "sampling/createMessage": { ask: sample, prefix: "sample" },
  "roots/list": { ask: roots, prefix: "roots" },
};

/**
 * One of the remote's questions read outside the client (lane.ts, the handshake era: no key), for the capabilities
 * `declared`, answered as the client's handlers would: its result, or a ProtocolError.
 */
export function answerAsked(declared: ClientCapabilities, label: string) {
  return (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const asked = Object.hasOwn(ASKS, method) ? ASKS[method] : undefined;
    const capability =
      method === "elicitation/create" ? "elicitation" : method === "sampling/createMessage" ? "sampling" : "roots";
    if (!asked || !declared[capability]) return Promise.reject(NOT_FOUND());
    return answer(undefined, label, asked.ask, params, undefined, asked.prefix);
  };
}

/**
 * A question in a 2026-07-28 remote task's `inputRequests`, under its key, put to the gateway task running it
 * (`asTask`): its answer, or a ProtocolError.
 */
export function askForTask(
  label: string,
  method: string,
  params: unknown,
  remoteKey: string,
): Promise<Record<string, unknown>> {
  const asked = Object.hasOwn(ASKS, method) ? ASKS[method] : undefined;
  if (!asked) return Promise.reject(NOT_FOUND());
  return answer(undefined, label, asked.ask, params, remoteKey, asked.prefix);
}

/**
 * Answer the remote's questions on `client`, for the capabilities it declares; `ties` given, a question without a
 * caller goes to the sole call in flight (`untiedQuestions: "sole-call"`).
 */
export function answerQuestions(
  client: Client,
  declared: ClientCapabilities,
  ties: Ties | undefined,
  label: string,
): void {
  // A 2026-07-28 remote's question is embedded in its answer; the client hands it over with its key as the id.
  const remoteKey = (context: { mcpReq: { id?: unknown } }): string | undefined => {
    const version = client.getNegotiatedProtocolVersion();
    const id = context.mcpReq.id;
    return version !== undefined && version >= "2026" && typeof id === "string" ? id : undefined;
  };
  if (declared.elicitation) {
    client.setRequestHandler("elicitation/create", (request, context) =>
      answer(ties, label, elicit, request.params, remoteKey(context), "elicit"),
    );
  }
  if (declared.sampling) {
    client.setRequestHandler("sampling/createMessage", (request, context) =>
      answer(ties, label, sample, request.params, remoteKey(context), "sample"),
    );
  }
  if (declared.roots) {
    client.setRequestHandler("roots/list", (request, context) =>
      answer(ties, label, roots, request.params, remoteKey(context), "roots"),
    );
  }
}
