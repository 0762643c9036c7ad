import type { ListenFilter } from "../connection/methods.js";
import type { AuthInfo, Era } from "../context/context.js";
import type { LogLevel } from "../protocol/log-levels.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { isStatelessVersion, LATEST_STATELESS_VERSION, type ProtocolVersion } from "../protocol/versions.js";
import { type Servable, toServer } from "../server/servable.js";
import { isPlainObject, type JsonRpcNotification } from "../wire/json-rpc.js";
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
import { type AskHandlers, Asks, impliedCapabilities } from "./asks.js";
import { listen, type TestSubscription } from "./listen.js";
import { type TaskHandle, taskHandle } from "./tasks.js";
import { type CallOptions, type Exchange, Wire, type WireRecord } from "./wire.js";

// The test client itself: initialization or discovery, then one typed method per MCP request.

/** One page of a list: its items under the list's key, and the cursor of the next page if there is one. */
export type ListPage<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };

/** How the test client speaks, and how it answers what the server asks it (`elicit`, `sample`, `roots`). */
export interface TestClientOptions extends AskHandlers {
  /** The revision to speak: a handshake one opens with initialize, 2026-07-28 with server/discover (default). */
  protocolVersion?: ProtocolVersion;
  clientInfo?: Implementation;
  /** The client's capabilities; by default, those its handlers imply (`elicitation`, `sampling`, `roots`). */
  capabilities?: Record<string, unknown>;
  /** 2026-07-28: answer `input_required` rounds with the handlers and retry (default true). */
  followInputRequired?: boolean;
  /**
   * The caller, as an authenticating transport would give it: it holds exactly its `scopes` (widened by the server's
   * `impliedScopes`). Without it the client is the local user, as over stdio, and holds every scope.
   */
  auth?: AuthInfo;
  /**
   * Extensions to declare on every 2026-07-28 request (in `_meta` client capabilities' `extensions`): `tasks`
   * declares `io.modelcontextprotocol/tasks`, so that a task tool's call becomes a task (see `task()`).
   */
  extensions?: { tasks?: boolean };
}

/** A `subscriptions/listen` filter; `taskIds` asks for `notifications/tasks` about those tasks (the tasks extension). */
export type TestListenFilter = ListenFilter & { taskIds?: string[] };

/**
 * A client that talks to a server in memory, through the same JSON text a transport would carry.
 * @example
 * ```ts source="examples/testing.ts#TestClient"
 * const client = await createTestClient(server, { protocolVersion: LATEST_HANDSHAKE_VERSION });
 * const result = await client.callTool("add", { a: 1, b: 2 });
 * ```
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
  /** `tools/call`; a call the server made a task answers its `CreateTaskResult` as is (`resultType: "task"`). */
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /**
   * 2026-07-28 with `extensions: { tasks: true }`: call a task tool and get its task's handle (`get`, `update`,
   * `cancel`, `wait`); rejects when the server answered without a task. Input asked before the task exists is
   * answered in rounds as for `callTool`.
   * @example
   * ```ts source="examples/testing.ts#TestClient.task"
   * const task = await client.task("report", { month: "November" });
   * const done = await task.wait(); // answers its questions with the client's `elicit`
   * ```
   */
  task(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<TaskHandle>;
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
  listen(filter: TestListenFilter, options?: CallOptions): Promise<TestSubscription>;
  /**
   * Close the connection: every call still waiting is cancelled and rejects (so is every later one), every open
   * stream ends, and what still runs on the server side is aborted.
   */
  close(): void;
}

// A list whose pages bring nothing new this many times in a row is taken to loop (its cursors may all differ).
const STALE_PAGES = 100;
// A backstop for a list that never ends, whatever its pages bring.
const MAX_PAGES = 1_000_000;

/** Connect an in-memory client to `server` and complete the initialization (or discovery) of the chosen revision. */
export async function createTestClient(servable: Servable, options: TestClientOptions = {}): Promise<TestClient> {
  const protocolVersion = options.protocolVersion ?? LATEST_STATELESS_VERSION;
  const era: Era = isStatelessVersion(protocolVersion) ? "stateless" : "handshake";
  const clientInfo = options.clientInfo ?? { name: "toolsmith-test-client", version: "0.0.0" };
  const capabilities = withExtensions(options.capabilities ?? impliedCapabilities(options), era, options.extensions);
  const follow = options.followInputRequired ?? true;
  const asks = new Asks(options);
  const wire = new Wire(toServer(servable), { era, protocolVersion, clientInfo, capabilities }, options.auth, asks);

  async function exchange(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Exchange> {
    const signal = options?.signal;
    const into: Exchange = { result: {}, notifications: [], requests: [], rounds: 0 };
    let current = params;
    for (;;) {
      const result = await wire.call(method, current, into, signal);
      if (!follow || result.resultType !== "input_required") {
        into.result = result;
        return into;
      }
      current = await asks.round(method, params, result, into, signal);
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

  let serverResult: Record<string, unknown>;
  if (era === "handshake") {
    serverResult = await request("initialize", { protocolVersion, capabilities, clientInfo });
    await wire.notify("notifications/initialized");
  } else {
    serverResult = await request("server/discover");
  }

  return {
    protocolVersion,
    era,
    serverResult,
    messages: wire.messages,
    notifications: wire.notifications,
    request,
    exchange,
    notify: (method, params) => wire.notify(method, params),
    send: (line) => wire.send(line),
    listTools: (options) => all<Tool>("tools/list", "tools", options),
    listToolsPage: (cursor, options) => page("tools/list", "tools", cursor, options),
    callTool: async (name, args, options) =>
      (await request("tools/call", named(name, args), options)) as unknown as CallToolResult,
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
      (await request("prompts/get", named(name, args), options)) as unknown as GetPromptResult,
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
    task: async (name, args, options) =>
      taskHandle(
        { request: (method, params) => request(method, params), answer: (m, p, s) => asks.answerOne(m, p, s) },
        name,
        await request("tools/call", named(name, args), options),
      ),
    listen: (filter, options) => listen(wire, filter, options?.signal),
    close: () => {
      if (wire.closed) return;
      const closed = new Error("the test client was closed");
      // Each call still waiting is cancelled, as a client that goes away does, and rejects.
      asks.stop(closed);
      wire.close(closed);
    },
  };
}

// The capabilities with the extensions declared: on 2026-07-28 only, where the tasks extension is defined.
function withExtensions(
  capabilities: Record<string, unknown>,
  era: Era,
  extensions: TestClientOptions["extensions"],
): Record<string, unknown> {
  if (era !== "stateless" || !extensions?.tasks) return capabilities;
  const declared = isPlainObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...declared, [TASKS_EXTENSION]: {} } };
}

// The params of tools/call and prompts/get: the name, and the arguments when there are any.
function named(name: string, args: Record<string, unknown> | undefined): Record<string, unknown> {
  return args === undefined ? { name } : { name, arguments: args };
}
