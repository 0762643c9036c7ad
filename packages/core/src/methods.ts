import type { RequestContextImpl } from "./context.js";
import { McpError } from "./errors.js";
import { ErrorCode } from "./json-rpc.js";
import { andThen, type MaybePromise } from "./maybe.js";
import type { Router } from "./router.js";
import type { ServerCapabilities } from "./types.js";
import { CallToolParams, check, GetPromptParams, type Inbound, PaginatedParams, ReadResourceParams } from "./wire.js";

/** Which caching hint a 2026-07-28 result carries. */
export type CacheKind = "discover" | "list" | "read";

/** A result's own caching hint; a symbol key, so it never reaches the wire by itself. */
export const CACHE_HINT: unique symbol = Symbol("toolsmith.cacheHint");

/** One MCP method as the dispatcher sees it. */
export interface Method {
  /** The capability that must be advertised for the method to exist. */
  readonly capability?: keyof ServerCapabilities;
  readonly cache?: CacheKind;
  run(
    router: Router,
    params: Record<string, unknown> | undefined,
    ctx: RequestContextImpl,
  ): MaybePromise<Record<string, unknown>>;
}

function parse<T>(inbound: Inbound<T>, params: Record<string, unknown> | undefined): T {
  const parsed = check(inbound, params ?? {});
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((issue) => `${issue.path.join(".") || "params"}: ${issue.message}`).join("; ");
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${detail}`);
}

// Nothing is paginated yet, so no cursor this server could have issued exists.
function noCursor(params: Record<string, unknown> | undefined): void {
  const { cursor } = parse(PaginatedParams, params);
  if (cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
}

/** A list method: no cursor to honour, one array under `key`. */
function list(
  capability: keyof ServerCapabilities,
  key: string,
  items: (router: Router, ctx: RequestContextImpl) => MaybePromise<unknown[]>,
): Method {
  return {
    capability,
    cache: "list",
    run(router, params, ctx) {
      noCursor(params);
      return andThen(items(router, ctx), (found) => ({ [key]: found }));
    },
  };
}

/** The methods both eras share. */
export const COMMON_METHODS: Readonly<Record<string, Method>> = {
  "tools/list": list("tools", "tools", (router, ctx) => router.listTools(ctx.protocolVersion)),
  "tools/call": {
    capability: "tools",
    run(router, params, ctx) {
      const { name, arguments: args } = parse(CallToolParams, params);
      return router.callTool(name, args, ctx) as unknown as MaybePromise<Record<string, unknown>>;
    },
  },
  "resources/list": list("resources", "resources", (router, ctx) => router.listResources(ctx)),
  "resources/templates/list": list("resources", "resourceTemplates", (router, ctx) =>
    router.listResourceTemplates(ctx.protocolVersion),
  ),
  "resources/read": {
    capability: "resources",
    cache: "read",
    run(router, params, ctx) {
      const { uri } = parse(ReadResourceParams, params);
      return andThen(router.readResource(uri, ctx), ({ result, cache }) =>
        cache ? { ...result, [CACHE_HINT]: cache } : { ...result },
      );
    },
  },
  "prompts/list": list("prompts", "prompts", (router, ctx) => router.listPrompts(ctx.protocolVersion)),
  "prompts/get": {
    capability: "prompts",
    run(router, params, ctx) {
      const { name, arguments: args } = parse(GetPromptParams, params);
      return router.getPrompt(name, args, ctx) as unknown as MaybePromise<Record<string, unknown>>;
    },
  },
};

/** Methods 2026-07-28 removed; asked for in that era they are -32601 with a message saying so. */
export const REMOVED_IN_STATELESS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);
