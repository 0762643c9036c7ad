import type { RequestContextImpl } from "../context/request-context.js";
import type { OperationKind } from "../middleware/compose.js";
import { CACHE_HINT, type CacheHint, type CacheKind } from "../protocol/cache-hints.js";
import {
  CallToolParams,
  CompleteParams,
  check,
  GetPromptParams,
  type Inbound,
  issuesText,
  ListenParams,
  PaginatedParams,
  ReadResourceParams,
} from "../protocol/inbound.js";
import { isLogLevel, type LogLevel } from "../protocol/log-levels.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { searchTools, surfaceTools } from "../registry/tool-search.js";
import { McpError, shown } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import type { CallToolResult, ServerCapabilities, Tool } from "../wire/types.js";
import type { ServerCore } from "./server-core.js";
import { SKILL_METHODS } from "./skill-methods.js";

/** What `subscriptions/listen` asks for. */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** The tasks extension: `notifications/tasks` for these tasks (the caller's own). */
  taskIds?: string[];
}

/** What the connection-scoped methods need from their connection. */
export interface ConnectionControl {
  // A promise while the session change is told (`ConnectOptions.onSessionChange`): the reply waits for it.
  setLogLevel(level: LogLevel): MaybePromise<void>;
  subscribe(uri: string, ctx: RequestContextImpl): MaybePromise<void>;
  unsubscribe(uri: string): MaybePromise<void>;
  /** Open a listen stream; resolves with its result when the server ends it. */
  listen(filter: ListenFilter, ctx: RequestContextImpl): Promise<Record<string, unknown>>;
}

/** Where a method runs: the server everyone shares, and the connection the request came on. */
export interface MethodEnv {
  readonly core: ServerCore;
  readonly connection: ConnectionControl;
  /** Whether the transport serves the handshake era here (`ConnectOptions.handshake`). */
  readonly handshake: boolean;
}

/** One MCP method as the dispatcher sees it. */
export interface Method {
  /** The capability that must be advertised for the method to exist. */
  readonly capability?: keyof ServerCapabilities;
  /** The extension that must be declared for the method to exist (`capabilities.extensions`). */
  readonly extension?: string;
  readonly cache?: CacheKind;
  /** The hint its result carries unless its own says otherwise, where not simply the server's `cache` of its kind. */
  readonly fallbackCache?: (core: ServerCore) => CacheHint;
  /** 2026-07-28: this method may answer `input_required`; the name/URI and arguments a retry must repeat. */
  readonly asks?: (params: Record<string, unknown> | undefined) => { target: string; args: unknown };
  /** Middleware runs around this method, seeing it as this kind of operation. */
  readonly operation?: OperationKind;
  run(
    env: MethodEnv,
    params: Record<string, unknown> | undefined,
    ctx: RequestContextImpl,
  ): MaybePromise<Record<string, unknown>>;
}

function parse<T>(inbound: Inbound<T>, params: Record<string, unknown> | undefined): T {
  const parsed = check(inbound, params ?? {});
  if (parsed.success) return parsed.data;
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issuesText(parsed.error.issues)}`);
}

/** What a retry of a method reaching its target by name (a tool, a prompt) must repeat: the name and arguments. */
function asksByName(inbound: Inbound<{ name: string; arguments?: unknown }>): NonNullable<Method["asks"]> {
  return (params) => {
    const { name, arguments: args } = parse(inbound, params);
    return { target: name, args };
  };
}

/**
 * A list method: one array under `key`, a page at a time when the server pages; `cache`: its own hint, if any, else
 * the server's list hint narrowed by its modules'.
 */
function list(
  capability: "tools" | "resources" | "prompts",
  key: string,
  items: (env: MethodEnv, ctx: RequestContextImpl, params: Record<string, unknown>) => MaybePromise<unknown[]>,
  cache?: (env: MethodEnv) => CacheHint | undefined,
): Method {
  return {
    capability,
    cache: "list",
    fallbackCache: (core) => core.router.listCache(capability),
    operation: "list",
    run(env, params, ctx) {
      const { cursor } = parse(PaginatedParams, params);
      return andThen(items(env, ctx, params ?? {}), (found) => {
        const page = env.core.page(key, found, cursor);
        const hint = cache?.(env);
        return hint ? andThen(page, (result) => ({ ...result, [CACHE_HINT]: hint })) : page;
      });
    },
  };
}

const EMPTY = (): Record<string, unknown> => ({});

/** Every method a server answers; which exist in a request's revision is the revision table's word. */
export const METHODS: Readonly<Record<string, Method>> = {
  ping: { run: EMPTY },
  "server/discover": { cache: "discover", run: (env) => env.core.discoverResult(env.handshake) },
  "tools/list": list("tools", "tools", (env, ctx, params) => {
    const listed = env.core.router.listTools(ctx, params);
    const search = env.core.toolSearch;
    return search === undefined ? listed : andThen(listed, (tools) => surfaceTools(search.settings, tools));
  }),
  "tools/call": {
    capability: "tools",
    operation: "call",
    asks: asksByName(CallToolParams),
    run(env, params, ctx) {
      const { name, arguments: args } = parse(CallToolParams, params);
      ctx.logger = name;
      const search = env.core.toolSearch;
      if (search !== undefined && name === search.settings.search) {
        // What this caller may see, as its tools/list would show it without the search surface.
        const found = andThen(
          env.core.router.listTools(ctx, params),
          (tools: Tool[]): CallToolResult => searchTools(search.settings, search.ranker, tools, args),
        );
        return found as unknown as MaybePromise<Record<string, unknown>>;
      }
      const result = env.core.router.callTool(name, args, ctx, params, ctx.checkTool);
      return result as unknown as MaybePromise<Record<string, unknown>>;
    },
  },
  "resources/list": list(
    "resources",
    "resources",
    (env, ctx, params) => env.core.router.listResources(ctx, params),
    (env) => env.core.router.resourcesListCache(),
  ),
  "resources/templates/list": list("resources", "resourceTemplates", (env, ctx, params) =>
    env.core.router.listResourceTemplates(ctx, params),
  ),
  "resources/read": {
    capability: "resources",
    cache: "read",
    operation: "read",
    asks: (params) => ({ target: parse(ReadResourceParams, params).uri, args: undefined }),
    run(env, params, ctx) {
      const { uri } = parse(ReadResourceParams, params);
      return env.core.router.readResource(uri, ctx, params) as unknown as MaybePromise<Record<string, unknown>>;
    },
  },
  "resources/subscribe": {
    capability: "resources",
    run(env, params, ctx) {
      return andThen(env.connection.subscribe(parse(ReadResourceParams, params).uri, ctx), EMPTY);
    },
  },
  "resources/unsubscribe": {
    capability: "resources",
    run(env, params) {
      return andThen(env.connection.unsubscribe(parse(ReadResourceParams, params).uri), EMPTY);
    },
  },
  "prompts/list": list("prompts", "prompts", (env, ctx, params) => env.core.router.listPrompts(ctx, params)),
  "prompts/get": {
    capability: "prompts",
    operation: "get",
    asks: asksByName(GetPromptParams),
    run(env, params, ctx) {
      const { name, arguments: args } = parse(GetPromptParams, params);
      ctx.logger = name;
      return env.core.router.getPrompt(name, args, ctx, params) as unknown as MaybePromise<Record<string, unknown>>;
    },
  },
  "completion/complete": {
    capability: "completions",
    operation: "complete",
    run(env, params, ctx) {
      const { ref, argument, context } = parse(CompleteParams, params);
      const known = ctx.revision.completionContext ? (context?.arguments ?? {}) : {};
      return andThen(env.core.router.complete(ref, argument, known, ctx, params), (completion) => ({ completion }));
    },
  },
  "logging/setLevel": {
    capability: "logging",
    run(env, params) {
      const level = params?.level;
      if (!isLogLevel(level)) {
        throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${shown(level)}`);
      }
      return andThen(env.connection.setLogLevel(level), EMPTY);
    },
  },
  // Tasks: 2025-11-25's and the extension's (2026-07-28); the revision table says which of these each has.
  "tasks/get": { run: (env, params, ctx) => env.core.tasks.get(params, ctx) },
  "tasks/update": { run: (env, params, ctx) => env.core.tasks.update(params, ctx) },
  "tasks/cancel": { run: (env, params, ctx) => env.core.tasks.cancel(params, ctx) },
  "tasks/result": { run: (env, params, ctx) => env.core.tasks.result(params, ctx) },
  "tasks/list": { run: (env, params, ctx) => env.core.tasks.list(params, ctx) },
  "subscriptions/listen": {
    run(env, params, ctx) {
      const { notifications } = parse(ListenParams, params);
      return env.connection.listen(notifications ?? {}, ctx);
    },
  },
  ...SKILL_METHODS,
};

/** The method a request reaches in its revision: -32601 when there is none, or the revision has none of that name. */
export function methodOf(method: string, revision: RevisionFeatures): Method {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (handler === undefined || revision.removedMethods.has(method)) {
    const why = handler
      ? ` (${revision.era === "stateless" ? "removed in" : "not part of"} protocol revision ${revision.version})`
      : "";
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}${why}`);
  }
  return handler;
}

/** -32601 for a method whose capability this server does not advertise (it registered nothing of that kind). */
export function checkCapable(core: ServerCore, method: string, handler: Method): void {
  if (handler.capability && core.router.capabilities()[handler.capability] === undefined) {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (this server has no ${handler.capability})`,
    );
  }
  if (handler.extension && core.router.capabilities().extensions?.[handler.extension] === undefined) {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (this server has no ${handler.extension})`,
    );
  }
}
