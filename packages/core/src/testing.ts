import type { Connection, Route } from "./connection.js";
import type { AuthInfo, Era, Root } from "./context.js";
import { McpError } from "./errors.js";
import {
  ErrorCode,
  isPlainObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from "./json-rpc.js";
import type { LogLevel } from "./logger.js";
import type { MaybePromise } from "./maybe.js";
import type { ListenFilter } from "./methods.js";
import { isStatelessVersion, MetaKey, type ProtocolVersion } from "./protocol.js";
import { type Servable, toServer } from "./server.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "./types.js";

/** One message that crossed the in-memory wire, as the JSON text it was. */
export interface WireRecord {
  direction: "in" | "out";
  line: string;
  message: JsonRpcMessage;
}

/** Answers a request the server sends the client (elicitation, sampling): the result, or a throw for an error. */
export type ClientHandler = (params: Record<string, unknown>) => MaybePromise<Record<string, unknown>>;

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
  /** The next notification on the stream. */
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
  /** Send a request; resolves to its result, rejects with an McpError for an error reply. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Send a request; resolves to its result with what the server said while serving it. */
  exchange(method: string, params?: Record<string, unknown>): Promise<Exchange>;
  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Send raw text exactly as given; resolves to the reply line, if any. */
  send(line: string): Promise<string | undefined>;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  readResource(uri: string): Promise<ReadResourceResult>;
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  /** `completion/complete` for a prompt argument (`ref/prompt`) or a template variable (`ref/resource`). */
  complete(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  /** Handshake era: `logging/setLevel`. */
  setLogLevel(level: LogLevel): Promise<void>;
  /** 2026-07-28: open a `subscriptions/listen` stream. */
  listen(filter: ListenFilter): Promise<TestSubscription>;
  /** Abort what is still running on the server side. */
  close(): void;
}

interface Waiting {
  resolve(response: JsonRpcResponse): void;
  notifications: JsonRpcNotification[];
  requests: { method: string; params: Record<string, unknown> }[];
}

/** Connect an in-memory client to `server` and complete the handshake (or discovery) of the chosen revision. */
export async function createTestClient(servable: Servable, options: TestClientOptions = {}): Promise<TestClient> {
  const server = toServer(servable);
  const protocolVersion = options.protocolVersion ?? "2026-07-28";
  const era: Era = isStatelessVersion(protocolVersion) ? "stateless" : "handshake";
  const clientInfo = options.clientInfo ?? { name: "toolsmith-test-client", version: "0.0.0" };
  const capabilities = options.capabilities ?? impliedCapabilities(options);
  const follow = options.followInputRequired ?? true;
  const messages: WireRecord[] = [];
  const notifications: JsonRpcNotification[] = [];
  const waiting = new Map<string, Waiting>();
  const streams = new Map<string, (notification: JsonRpcNotification) => void>();
  let rawReplies: string[] | undefined;
  let nextId = 0;

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
      void answer(method, params ?? {}).then(
        (result) => deliver({ jsonrpc: "2.0", id, result }),
        (error: unknown) =>
          deliver({
            jsonrpc: "2.0",
            id,
            error: {
              code: error instanceof McpError ? error.code : ErrorCode.InternalError,
              message: error instanceof Error ? error.message : String(error),
            },
          }),
      );
      return;
    }
    const notification = message as JsonRpcNotification;
    notifications.push(notification);
    const subscription = (notification.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.subscriptionId];
    if (subscription !== undefined) streams.get(keyOf(subscription))?.(notification);
    else if (route.relatedTo !== undefined) waiting.get(keyOf(route.relatedTo))?.notifications.push(notification);
  }

  const connection: Connection = server.connect({
    send: onServerLine,
    ...(options.auth ? { auth: options.auth } : {}),
  });

  function deliver(message: Record<string, unknown>): void {
    const line = JSON.stringify(message);
    messages.push({ direction: "in", line, message: message as unknown as JsonRpcMessage });
    void connection.receive(line);
  }

  function answer(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const handler =
      method === "elicitation/create"
        ? options.elicit
        : method === "sampling/createMessage"
          ? options.sample
          : method === "roots/list" && options.roots
            ? () => ({ roots: options.roots })
            : undefined;
    if (!handler) return Promise.reject(new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
    return Promise.resolve().then(() => handler(params));
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

  function once(method: string, params: Record<string, unknown> | undefined, into: Exchange): Promise<JsonRpcResponse> {
    const id: RequestId = nextId++;
    const full = withMeta(params);
    const line = JSON.stringify(
      full === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: full },
    );
    return new Promise((resolve) => {
      waiting.set(keyOf(id), { resolve, notifications: into.notifications, requests: into.requests });
      messages.push({ direction: "in", line, message: safeParse(line) });
      void connection.receive(line);
    });
  }

  async function exchange(method: string, params?: Record<string, unknown>): Promise<Exchange> {
    const into: Exchange = { result: {}, notifications: [], requests: [], rounds: 0 };
    let current = params;
    for (;;) {
      const response = await once(method, current, into);
      if ("error" in response) throw new McpError(response.error.code, response.error.message, response.error.data);
      const result = response.result;
      if (!follow || result.resultType !== "input_required" || into.rounds >= 16) {
        into.result = result;
        return into;
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
        inputResponses[key] = await answer(askedMethod, askedParams ?? {});
      }
      current = { ...params, inputResponses };
      if (result.requestState !== undefined) current.requestState = result.requestState;
    }
  }

  async function request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    return (await exchange(method, params)).result;
  }

  async function notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const full = era === "handshake" ? params : withMeta(params);
    await send(
      JSON.stringify(full === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params: full }),
    );
  }

  async function listen(filter: ListenFilter): Promise<TestSubscription> {
    const id: RequestId = `listen-${nextId++}`;
    const received: JsonRpcNotification[] = [];
    const readers: ((notification: JsonRpcNotification) => void)[] = [];
    let unread = 0;
    let acknowledged: (filter: ListenFilter) => void = () => {};
    const ack = new Promise<ListenFilter>((resolve) => {
      acknowledged = resolve;
    });
    streams.set(keyOf(id), (notification) => {
      if (notification.method === "notifications/subscriptions/acknowledged") {
        acknowledged((notification.params?.notifications ?? {}) as ListenFilter);
        return;
      }
      received.push(notification);
      const reader = readers.shift();
      if (reader) {
        unread++;
        reader(notification);
      }
    });
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: withMeta({ notifications: filter }),
    });
    messages.push({ direction: "in", line, message: safeParse(line) });
    const ended = new Promise<JsonRpcResponse>((resolve) => {
      waiting.set(keyOf(id), { resolve, notifications: [], requests: [] });
    });
    void connection.receive(line);
    const first = await Promise.race([ack, ended]);
    if ("jsonrpc" in first) {
      const error = "error" in first ? first.error : { code: ErrorCode.InternalError, message: "listen ended at once" };
      throw new McpError(error.code, error.message, error.data);
    }
    return {
      id,
      acknowledged: first,
      notifications: received,
      next: () =>
        unread < received.length
          ? Promise.resolve(received[unread++] as JsonRpcNotification)
          : new Promise((resolve) => readers.push(resolve)),
      close: async () => {
        streams.delete(keyOf(id));
        waiting.delete(keyOf(id));
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
    listTools: async () => (await request("tools/list")).tools as Tool[],
    callTool: async (name, args) =>
      (await request(
        "tools/call",
        args === undefined ? { name } : { name, arguments: args },
      )) as unknown as CallToolResult,
    listResources: async () => (await request("resources/list")).resources as Resource[],
    listResourceTemplates: async () =>
      (await request("resources/templates/list")).resourceTemplates as ResourceTemplate[],
    readResource: async (uri) => (await request("resources/read", { uri })) as unknown as ReadResourceResult,
    listPrompts: async () => (await request("prompts/list")).prompts as Prompt[],
    getPrompt: async (name, args) =>
      (await request(
        "prompts/get",
        args === undefined ? { name } : { name, arguments: args },
      )) as unknown as GetPromptResult,
    complete: async (ref, argument, context) =>
      (
        await request(
          "completion/complete",
          context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } },
        )
      ).completion as { values: string[]; total?: number; hasMore?: boolean },
    setLogLevel: async (level) => {
      await request("logging/setLevel", { level });
    },
    listen,
    close: () => connection.close(),
  };
}

function impliedCapabilities(options: TestClientOptions): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (options.elicit) capabilities.elicitation = { form: {}, url: {} };
  if (options.sample) capabilities.sampling = { tools: {} };
  if (options.roots) capabilities.roots = {};
  return capabilities;
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
