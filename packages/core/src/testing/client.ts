import type { Connection } from "../connection/connection.js";
import type { ListenFilter } from "../connection/methods.js";
import type { Route } from "../connection/outlet.js";
import type { Root } from "../context/ask.js";
import type { AuthInfo, Era } from "../context/context.js";
import type { LogLevel } from "../protocol/log-levels.js";
import { isStatelessVersion, LATEST_STATELESS_VERSION, MetaKey, type ProtocolVersion } from "../protocol/versions.js";
import { type Servable, toServer } from "../server/server.js";
import { isMcpError, McpError, messageOf } from "../wire/errors.js";
import {
  ErrorCode,
  isPlainObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "../wire/types.js";

/** One message that crossed the in-memory wire, as the JSON text it was. */
export interface WireRecord {
  direction: "in" | "out";
  line: string;
  message: JsonRpcMessage;
}

/**
 * Answers a request the server sends the client (elicitation, sampling) with its result, the same way in both eras:
 * a refusal is a result (`{ action: "decline" }`). Anything else it throws (a failed `expect`) rejects the test's
 * call with that very error and cancels the call on the server; an `McpError` it throws is instead the client's
 * JSON-RPC error answer in the handshake era (2026-07-28 has no error answers: the call rejects with it).
 * `signal` aborts when the call is aborted or the server withdraws its request.
 */
export type ClientHandler = (
  params: Record<string, unknown>,
  context: { signal: AbortSignal },
) => MaybePromise<Record<string, unknown>>;

/** Options of one call. */
export interface CallOptions {
  /**
   * Aborting it cancels the request as a client of its era does (`notifications/cancelled` with its id; between
   * 2026-07-28 input rounds, by not retrying) and rejects the call with the signal's reason (an AbortError).
   */
  signal?: AbortSignal;
}

/** One page of a list: its items under the list's key, and the cursor of the next page if there is one. */
export type ListPage<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };

export interface TestClientOptions {
  /** The revision to speak: a handshake one opens with initialize, 2026-07-28 with server/discover (default). */
  protocolVersion?: ProtocolVersion;
  clientInfo?: Implementation;
  /** The client's capabilities; by default, those its handlers below imply (`elicitation`, `sampling`, `roots`). */
  capabilities?: Record<string, unknown>;
  /** Answers `elicitation/create`. */
  elicit?: ClientHandler;
  /** Answers `sampling/createMessage`. */
  sample?: ClientHandler;
  /** Answers `roots/list`. */
  roots?: Root[];
  /** 2026-07-28: answer `input_required` rounds with the handlers above and retry (default true). */
  followInputRequired?: boolean;
  /** The caller, as an authenticating transport would give it. */
  auth?: AuthInfo;
}

/** A request's result and everything the server said while serving it. */
export interface Exchange {
  result: Record<string, unknown>;
  /** Notifications sent while serving it (progress, logs), in order, across every input round. */
  notifications: JsonRpcNotification[];
  /** Requests the server sent the client while serving it (handshake era), in order. */
  requests: { method: string; params: Record<string, unknown> }[];
  /** 2026-07-28: how many `input_required` rounds were answered before the result. */
  rounds: number;
}

/** An open `subscriptions/listen` stream (2026-07-28). */
export interface TestSubscription {
  readonly id: RequestId;
  /** What the server agreed to send (its acknowledgement). */
  readonly acknowledged: ListenFilter;
  /** Every notification on the stream after the acknowledgement. */
  readonly notifications: JsonRpcNotification[];
  /** The next notification on the stream; rejects once the stream has ended (closed, aborted, the client closed). */
  next(): Promise<JsonRpcNotification>;
  /** Cancel the stream, as a client does. */
  close(): Promise<void>;
}

/**
 * A client that talks to a server in memory, through the same JSON text a transport would carry.
 * @example
 * const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
 * const result = await client.callTool("add", { a: 1, b: 2 });
 */
export interface TestClient {
  readonly protocolVersion: ProtocolVersion;
  readonly era: Era;
  /** The `initialize` or `server/discover` result. */
  readonly serverResult: Record<string, unknown>;
  /** Every line exchanged, in order: "in" is client → server. */
  readonly messages: readonly WireRecord[];
  /** Every notification the server sent, in order. */
  readonly notifications: readonly JsonRpcNotification[];
  /**
   * Send a request; resolves to its result, rejects with an McpError for an error reply. For a generic -32603
   * ("Internal error"), the server-side error behind it is the McpError's `cause` (in memory only: the wire still
   * says just "Internal error").
   */
  request(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Send a request; resolves to its result with what the server said while serving it. */
  exchange(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Exchange>;
  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Send raw text exactly as given; resolves to the reply line, if any. */
  send(line: string): Promise<string | undefined>;
  /** Every tool, following `nextCursor` through every page. */
  listTools(options?: CallOptions): Promise<Tool[]>;
  /** One page of `tools/list`: the first, or the one `cursor` names. */
  listToolsPage(cursor?: string, options?: CallOptions): Promise<ListPage<"tools", Tool>>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /** Every resource (static and listed by templates), through every page. */
  listResources(options?: CallOptions): Promise<Resource[]>;
  listResourcesPage(cursor?: string, options?: CallOptions): Promise<ListPage<"resources", Resource>>;
  /** Every resource template, through every page. */
  listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]>;
  listResourceTemplatesPage(
    cursor?: string,
    options?: CallOptions,
  ): Promise<ListPage<"resourceTemplates", ResourceTemplate>>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  /** Every prompt, through every page. */
  listPrompts(options?: CallOptions): Promise<Prompt[]>;
  listPromptsPage(cursor?: string, options?: CallOptions): Promise<ListPage<"prompts", Prompt>>;
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>;
  /** `completion/complete` for a prompt argument (`ref/prompt`) or a template variable (`ref/resource`). */
  complete(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: CallOptions,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  /** Handshake era: `logging/setLevel`. */
  setLogLevel(level: LogLevel): Promise<void>;
  /** 2026-07-28: open a `subscriptions/listen` stream; aborting `signal` closes it (`next()` then rejects). */
  listen(filter: ListenFilter, options?: CallOptions): Promise<TestSubscription>;
  /**
   * Close the connection: every call still waiting is cancelled and rejects (so is every later one), every open
   * stream ends, and what still runs on the server side is aborted.
   */
  close(): void;
}

interface Waiting {
  resolve(response: JsonRpcResponse): void;
  /** The call fails on the client's side (aborted, or the test's own handler threw): cancel it on the server. */
  fail(error: unknown, reason: string): void;
  notifications: JsonRpcNotification[];
  requests: { method: string; params: Record<string, unknown> }[];
  /** The server-side error behind a generic -32603 reply. */
  cause?: unknown;
  /** The test's handlers answering the server's requests made for this call (handshake era). */
  answering: Set<AbortController>;
}

// A list whose pages bring nothing new this many times in a row is taken to loop (its cursors may all differ).
const STALE_PAGES = 100;
// A backstop for a list that never ends, whatever its pages bring.
const MAX_PAGES = 1_000_000;
// 2026-07-28: a call still asking for input after this many rounds is taken to loop.
const MAX_ROUNDS = 100;

/** Connect an in-memory client to `server` and complete the handshake (or discovery) of the chosen revision. */
export async function createTestClient(servable: Servable, options: TestClientOptions = {}): Promise<TestClient> {
  const server = toServer(servable);
  const protocolVersion = options.protocolVersion ?? LATEST_STATELESS_VERSION;
  const era: Era = isStatelessVersion(protocolVersion) ? "stateless" : "handshake";
  const clientInfo = options.clientInfo ?? { name: "toolsmith-test-client", version: "0.0.0" };
  const capabilities = options.capabilities ?? impliedCapabilities(options);
  const follow = options.followInputRequired ?? true;
  const messages: WireRecord[] = [];
  const notifications: JsonRpcNotification[] = [];
  const waiting = new Map<string, Waiting>();
  // The server's own requests being answered by the test's handlers, by the server's id.
  const asking = new Map<string, AbortController>();
  const streams = new Map<string, (notification: JsonRpcNotification) => void>();
  let rawReplies: string[] | undefined;
  let nextId = 0;
  // Set by close(): what was waiting has been rejected with it, and every later call is.
  let closed: Error | undefined;
  // 2026-07-28 rounds whose questions the test's handlers are answering (between two requests of one call).
  const rounds = new Set<AbortController>();

  function onServerLine(line: string, route: Route): void {
    const message = safeParse(line);
    messages.push({ direction: "out", line, message });
    if (route.kind === "response") {
      rawReplies?.push(line);
      const id = (message as { id?: unknown }).id;
      const entry = waiting.get(keyOf(id));
      if (entry) {
        waiting.delete(keyOf(id));
        entry.resolve(message as JsonRpcResponse);
      }
      return;
    }
    if (route.kind === "request") {
      const { id, method, params } = message as { id: RequestId; method: string; params?: Record<string, unknown> };
      const related = route.relatedTo === undefined ? undefined : waiting.get(keyOf(route.relatedTo));
      related?.requests.push({ method, params: params ?? {} });
      const controller = new AbortController();
      asking.set(keyOf(id), controller);
      related?.answering.add(controller);
      const settled = () => {
        asking.delete(keyOf(id));
        related?.answering.delete(controller);
        return !controller.signal.aborted;
      };
      void answer(method, params ?? {}, controller.signal).then(
        (result) => {
          if (settled()) deliver({ jsonrpc: "2.0", id, result });
        },
        (error: unknown) => {
          if (!settled()) return;
          // A failed assertion fails the call that caused the question, as it does in 2026-07-28.
          if (related && !isMcpError(error)) return related.fail(error, `the test client's ${method} handler threw`);
          const code = isMcpError(error) ? error.code : ErrorCode.InternalError;
          deliver({ jsonrpc: "2.0", id, error: { code, message: messageOf(error) } });
        },
      );
      return;
    }
    const notification = message as JsonRpcNotification;
    notifications.push(notification);
    if (notification.method === "notifications/cancelled") asking.get(keyOf(notification.params?.requestId))?.abort();
    const subscription = (notification.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.subscriptionId];
    if (subscription !== undefined) streams.get(keyOf(subscription))?.(notification);
    else if (route.relatedTo !== undefined) waiting.get(keyOf(route.relatedTo))?.notifications.push(notification);
  }

  const connection: Connection = server.connect({
    send: onServerLine,
    ...(options.auth ? { auth: options.auth } : {}),
    onInternalError: (error, id) => {
      const entry = waiting.get(keyOf(id));
      if (entry) entry.cause = error;
    },
  });

  function deliver(message: Record<string, unknown>): void {
    const line = JSON.stringify(message);
    messages.push({ direction: "in", line, message: message as unknown as JsonRpcMessage });
    void connection.receive(line);
  }

  function answer(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const handler: ClientHandler | undefined =
      method === "elicitation/create"
        ? options.elicit
        : method === "sampling/createMessage"
          ? options.sample
          : method === "roots/list" && options.roots
            ? () => ({ roots: options.roots })
            : undefined;
    if (!handler) return Promise.reject(new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
    // A handler that forgot to return fails the call with that, in both eras (not a wait for a reply, nor a retry).
    return Promise.resolve()
      .then(() => handler(params, { signal }))
      .then((result: unknown) => {
        if (isPlainObject(result)) return result;
        throw new TypeError(
          `the test client's ${method} handler returned ${result === null ? "null" : Array.isArray(result) ? "an array" : typeof result}, not a result: return the object the client answers (${EXAMPLE_ANSWER[method] ?? "{ … }"})`,
        );
      });
  }

  async function send(line: string): Promise<string | undefined> {
    messages.push({ direction: "in", line, message: safeParse(line) });
    const replies: string[] = [];
    const previous = rawReplies;
    rawReplies = replies;
    try {
      await connection.receive(line);
    } finally {
      rawReplies = previous;
    }
    previous?.push(...replies);
    return replies[0];
  }

  function withMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (era === "handshake") return params;
    const meta = isPlainObject(params?._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        [MetaKey.protocolVersion]: protocolVersion,
        [MetaKey.clientInfo]: clientInfo,
        [MetaKey.clientCapabilities]: capabilities,
        ...meta,
      },
    };
  }

  // The client gives up on a request: it tells the server, which stops the handler and answers nothing.
  function cancel(id: RequestId, reason: string): void {
    const params = withMeta({ requestId: id, reason });
    deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params });
  }

  function once(
    method: string,
    params: Record<string, unknown> | undefined,
    into: Exchange,
    signal: AbortSignal | undefined,
  ): Promise<{ response: JsonRpcResponse; cause: unknown }> {
    if (closed) return Promise.reject(closed);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id: RequestId = nextId++;
    const key = keyOf(id);
    const full = withMeta(params);
    const line = JSON.stringify(
      full === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: full },
    );
    return new Promise((resolve, reject) => {
      const onAbort = () => entry.fail(signal?.reason, abortReason(signal?.reason));
      const entry: Waiting = {
        notifications: into.notifications,
        requests: into.requests,
        answering: new Set(),
        resolve: (response) => {
          signal?.removeEventListener("abort", onAbort);
          resolve({ response, cause: entry.cause });
        },
        fail: (error, reason) => {
          if (waiting.get(key) !== entry) return;
          waiting.delete(key);
          signal?.removeEventListener("abort", onAbort);
          cancel(id, reason);
          for (const controller of entry.answering) controller.abort(error);
          reject(error);
        },
      };
      waiting.set(key, entry);
      signal?.addEventListener("abort", onAbort, { once: true });
      messages.push({ direction: "in", line, message: safeParse(line) });
      void connection.receive(line);
    });
  }

  async function exchange(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Exchange> {
    const signal = options?.signal;
    const into: Exchange = { result: {}, notifications: [], requests: [], rounds: 0 };
    let current = params;
    for (;;) {
      const { response, cause } = await once(method, current, into, signal);
      if ("error" in response) {
        const { code, message, data } = response.error;
        throw new McpError(code, message, data, cause === undefined ? undefined : { cause });
      }
      const result = response.result;
      if (!follow || result.resultType !== "input_required") {
        into.result = result;
        return into;
      }
      if (into.rounds >= MAX_ROUNDS) {
        throw new Error(
          `${method} still asked for input after ${MAX_ROUNDS} rounds: the server asks again whatever it is answered`,
        );
      }
      into.rounds++;
      const inputResponses: Record<string, unknown> = {};
      const asked = isPlainObject(result.inputRequests) ? result.inputRequests : {};
      for (const [key, request] of Object.entries(asked)) {
        const { method: askedMethod, params: askedParams } = request as {
          method: string;
          params?: Record<string, unknown>;
        };
        into.requests.push({ method: askedMethod, params: askedParams ?? {} });
        inputResponses[key] = await answerRound(askedMethod, askedParams ?? {}, signal);
      }
      current = { ...params, inputResponses };
      if (result.requestState !== undefined) current.requestState = result.requestState;
    }
  }

  // A round's question, answered by the test's handler; the call's abort or close() stops the wait (and tells it).
  async function answerRound(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    if (closed) throw closed;
    const round = new AbortController();
    const onAbort = () => round.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    rounds.add(round);
    try {
      return await abortable(answer(method, params, round.signal), round.signal);
    } finally {
      rounds.delete(round);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async function request(
    method: string,
    params?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Record<string, unknown>> {
    return (await exchange(method, params, options)).result;
  }

  async function page<K extends string, T>(
    method: string,
    key: K,
    cursor: string | undefined,
    options: CallOptions | undefined,
  ): Promise<ListPage<K, T>> {
    const result = await request(method, cursor === undefined ? undefined : { cursor }, options);
    const found = { [key]: result[key] } as ListPage<K, T>;
    if (typeof result.nextCursor === "string") found.nextCursor = result.nextCursor;
    return found;
  }

  // A list helper returns the whole list, as a client that follows `nextCursor` sees it. However long the list, it
  // ends; a server whose cursors come back, or whose pages bring nothing new again and again, fails it.
  async function all<T>(method: string, key: string, options: CallOptions | undefined): Promise<T[]> {
    const items: T[] = [];
    const cursors = new Set<string>();
    const known = new Set<string>();
    let cursor: string | undefined;
    let stale = 0;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const found = await page<string, T>(method, key, cursor, options);
      const listed = Array.isArray(found[key]) ? (found[key] as T[]) : [];
      items.push(...listed);
      let fresh = false;
      for (const item of listed) {
        const identity = JSON.stringify(item);
        if (known.has(identity)) continue;
        known.add(identity);
        fresh = true;
      }
      if (found.nextCursor === undefined) return items;
      cursor = found.nextCursor;
      if (cursors.has(cursor)) throw new Error(`${method} returned the cursor ${JSON.stringify(cursor)} twice`);
      cursors.add(cursor);
      stale = fresh ? 0 : stale + 1;
      if (stale >= STALE_PAGES) {
        throw new Error(
          `${method} gave ${STALE_PAGES} pages in a row with nothing new and a nextCursor: the server's cursors loop`,
        );
      }
    }
    throw new Error(`${method} still had a nextCursor after ${MAX_PAGES} pages: the server's cursors loop`);
  }

  async function notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const full = era === "handshake" ? params : withMeta(params);
    await send(
      JSON.stringify(full === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params: full }),
    );
  }

  async function listen(filter: ListenFilter, options?: CallOptions): Promise<TestSubscription> {
    const signal = options?.signal;
    if (closed) throw closed;
    if (signal?.aborted) throw signal.reason;
    const id: RequestId = `listen-${nextId++}`;
    const received: JsonRpcNotification[] = [];
    const readers: { resolve(notification: JsonRpcNotification): void; reject(error: unknown): void }[] = [];
    let unread = 0;
    // Why the stream ended, once it has: a reader waiting then, and every later one, is told.
    let ended: { why: unknown } | undefined;
    let acknowledged: (filter: ListenFilter) => void = () => {};
    let refused: (error: unknown) => void = () => {};
    const ack = new Promise<ListenFilter>((resolve, reject) => {
      acknowledged = resolve;
      refused = reject;
    });
    const end = (why: unknown, cancelReason?: string) => {
      if (ended) return;
      ended = { why };
      streams.delete(keyOf(id));
      waiting.delete(keyOf(id));
      signal?.removeEventListener("abort", onAbort);
      for (const reader of readers.splice(0)) reader.reject(why);
      refused(why);
      if (cancelReason !== undefined) cancel(id, cancelReason);
    };
    const onAbort = () => end(signal?.reason, abortReason(signal?.reason));
    streams.set(keyOf(id), (notification) => {
      if (notification.method === "notifications/subscriptions/acknowledged") {
        acknowledged((notification.params?.notifications ?? {}) as ListenFilter);
        return;
      }
      received.push(notification);
      const reader = readers.shift();
      if (reader) {
        unread++;
        reader.resolve(notification);
      }
    });
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: withMeta({ notifications: filter }),
    });
    messages.push({ direction: "in", line, message: safeParse(line) });
    waiting.set(keyOf(id), {
      // The server ended the stream: refused at once (its error), or closed later (its result).
      resolve: (response) => {
        const error = "error" in response ? response.error : undefined;
        end(
          error
            ? new McpError(error.code, error.message, error.data)
            : new Error(`the server ended the subscriptions/listen stream ${JSON.stringify(id)}`),
        );
      },
      fail: (error, reason) => end(error, reason),
      notifications: [],
      requests: [],
      answering: new Set(),
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    void connection.receive(line);
    const first = await ack;
    return {
      id,
      acknowledged: first,
      notifications: received,
      next: () => {
        if (unread < received.length) return Promise.resolve(received[unread++] as JsonRpcNotification);
        if (ended) return Promise.reject(ended.why);
        return new Promise((resolve, reject) => readers.push({ resolve, reject }));
      },
      close: async () => {
        if (ended) return;
        end(new Error(`the subscriptions/listen stream ${JSON.stringify(id)} was closed`));
        await notify("notifications/cancelled", { requestId: id, reason: "closed by the test" });
      },
    };
  }

  let serverResult: Record<string, unknown>;
  if (era === "handshake") {
    serverResult = await request("initialize", { protocolVersion, capabilities, clientInfo });
    await notify("notifications/initialized");
  } else {
    serverResult = await request("server/discover");
  }

  return {
    protocolVersion,
    era,
    serverResult,
    messages,
    notifications,
    request,
    exchange,
    notify,
    send,
    listTools: (options) => all<Tool>("tools/list", "tools", options),
    listToolsPage: (cursor, options) => page("tools/list", "tools", cursor, options),
    callTool: async (name, args, options) =>
      (await request(
        "tools/call",
        args === undefined ? { name } : { name, arguments: args },
        options,
      )) as unknown as CallToolResult,
    listResources: (options) => all<Resource>("resources/list", "resources", options),
    listResourcesPage: (cursor, options) => page("resources/list", "resources", cursor, options),
    listResourceTemplates: (options) => all<ResourceTemplate>("resources/templates/list", "resourceTemplates", options),
    listResourceTemplatesPage: (cursor, options) =>
      page("resources/templates/list", "resourceTemplates", cursor, options),
    readResource: async (uri, options) =>
      (await request("resources/read", { uri }, options)) as unknown as ReadResourceResult,
    listPrompts: (options) => all<Prompt>("prompts/list", "prompts", options),
    listPromptsPage: (cursor, options) => page("prompts/list", "prompts", cursor, options),
    getPrompt: async (name, args, options) =>
      (await request(
        "prompts/get",
        args === undefined ? { name } : { name, arguments: args },
        options,
      )) as unknown as GetPromptResult,
    complete: async (ref, argument, context, options) =>
      (
        await request(
          "completion/complete",
          context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } },
          options,
        )
      ).completion as { values: string[]; total?: number; hasMore?: boolean },
    setLogLevel: async (level) => {
      await request("logging/setLevel", { level });
    },
    listen,
    close: () => {
      if (closed) return;
      closed = new Error("the test client was closed");
      // Each call still waiting is cancelled, as a client that goes away does, and rejects.
      for (const entry of [...waiting.values()]) entry.fail(closed, "the test client was closed");
      for (const round of rounds) round.abort(closed);
      connection.close(closed);
    },
  };
}

function impliedCapabilities(options: TestClientOptions): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (options.elicit) capabilities.elicitation = { form: {}, url: {} };
  if (options.sample) capabilities.sampling = { tools: {} };
  if (options.roots) capabilities.roots = {};
  return capabilities;
}

// What each handler answers, said when one returns something else.
const EXAMPLE_ANSWER: Readonly<Record<string, string>> = {
  "elicitation/create": '{ action: "accept", content: { … } }, or { action: "decline" }',
  "sampling/createMessage": '{ role: "assistant", content: { type: "text", text }, model }',
};

// What the server is told when an aborted call is cancelled.
function abortReason(reason: unknown): string {
  return reason instanceof Error || typeof reason === "string" ? messageOf(reason) : "aborted by the test client";
}

// A test's handler that is still working when the call is aborted: the call does not wait for it.
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function keyOf(id: unknown): string {
  return typeof id === "string" ? `s${id}` : `n${String(id)}`;
}

function safeParse(line: string): JsonRpcMessage {
  try {
    return JSON.parse(line) as JsonRpcMessage;
  } catch {
    return { jsonrpc: "2.0", method: "(unparseable)", params: { line } };
  }
}
