import type { ErrorReport, Logger } from "../context/logger.js";
import { checkScopes, ScopeHierarchy } from "../context/scopes.js";
import type { Engine } from "../engine/engine.js";
import type { Middleware } from "../middleware/compose.js";
import { type CacheHint, type CacheKind, serverCacheHints } from "../protocol/cache-hints.js";
import { type TaskDefaults, taskDefaultsOf } from "../protocol/tasks.js";
import type { ServerScopes } from "../registry/scopes.js";
import { type ToolSearch, type ToolSearchOptions, toolSearchOf } from "../registry/tool-search.js";
import { DefinitionError } from "../wire/errors.js";
import type { Implementation } from "../wire/types.js";
import type { Servable } from "./servable.js";

/** What `createServer` takes: the server's identity and its server-wide settings. */
export interface ServerOptions extends Implementation {
  /** Told to the client at `initialize` or `server/discover`: how to use this server. */
  instructions?: string;
  /**
   * Caching hints for 2026-07-28 results (defaults: discover and lists of registered items 60 s public, reads 0 ms
   * private). A `resources/list` that a template's `list` computes per request follows the templates' `listCache`.
   */
  cache?: Partial<Record<CacheKind, CacheHint>>;
  /** Items per page of every list method (default: everything on one page). */
  pageSize?: number;
  /**
   * The HMAC key that seals 2026-07-28 `requestState` and list cursors (at least 16 bytes), and from which the key
   * that encrypts what `ctx.keep` carries is derived. Give every process behind one load balancer the same key;
   * without one, a random key is made at start.
   */
  stateKey?: string | Uint8Array;
  /** How long an `input_required` round may take before its `requestState` expires (default 10 minutes). */
  requestStateTtlMs?: number;
  /** How long a handshake-era request to the client (elicitation, sampling, roots) may go unanswered (default 5 minutes). */
  clientRequestTimeoutMs?: number;
  /** The server's own log (never the wire); transports install one that writes to stderr when none is set. */
  logger?: Logger;
  /**
   * Called with every error the server logs (a handler that threw, whose message became an `isError` result or a
   * generic -32603), whatever its level. A shorthand for a `logger` that only looks at errors.
   */
  onError?: (error: unknown, where: ErrorReport) => void;
  /** Middleware around every operation, outermost first (see `server.use`). */
  use?: readonly Middleware[];
  /**
   * The state that must outlive one process (handshake-era sessions, their events, the bus between processes): the
   * default is an in-memory engine, made on first use; `createRedisEngine` (`@toolsmith/redis`) shares it between
   * a server's processes.
   */
  engine?: Engine;
  /**
   * Defaults for tools that run as tasks (the tasks extension): `ttlMs` (default one hour; null: none),
   * `pollIntervalMs` (default 1000), `maxPerCaller` (tasks one caller may have running on a process; default 100),
   * `maxStoredPerCaller` (tasks one caller may have stored, finished ones until their TTL passes; default a tenth of
   * `maxStored`: 1000), `maxStored` (tasks all callers may have stored; default 10,000).
   */
  tasks?: TaskDefaults;
  /**
   * The most schema nodes a tool's listed input or output JSON Schema may hold once its reused sub-schemas are inlined
   * (default 10,000); a tool past it is refused at registration with a DefinitionError.
   */
  maxSchemaNodes?: number;
  /** Modules served under prefixes (see `server.mount`): `{ github: new GitHubTools() }`. */
  mount?: Readonly<Record<string, Servable>>;
  /**
   * OAuth scopes every request to this server needs, lists, `initialize` and `ping` included (a mounted module's:
   * every operation it serves), besides each tool's, resource's or prompt's own `scopes`. A caller that lacks one is
   * refused with `ErrorCode.InsufficientScope` (HTTP: 403, and its 401 challenge names them). Who holds which scopes:
   * a principal (`ctx.auth`) exactly its own; over stdio, and in the in-memory test client without `auth`, every one;
   * over HTTP without an `authenticate` hook, none.
   */
  scopes?: readonly string[];
  /**
   * Broad scopes and the narrower ones each implies, followed transitively (cycles are harmless): with
   * `{ "files:admin": ["files:write", "files:read"] }` a token holding `files:admin` may call a tool that needs
   * `files:write`. A mounted module's hierarchy joins its server's.
   */
  impliedScopes?: Readonly<Record<string, readonly string[]>>;
  /**
   * For a large catalogue: `tools/list` shows a search tool and a call tool (and any `pinned` tools) instead of every
   * tool. The search ranks only what this caller may see (a guard's hidden tool is never found, and is unknown to the
   * call tool as to `tools/call`); the call tool is served as `tools/call` of the tool it names, with its validation,
   * guards, scopes and middleware. `true` for the defaults.
   */
  toolSearch?: ToolSearchOptions | boolean;
}

/** The settings a server keeps from its options: checked once, defaults filled in. */
export interface Settings {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly cache: Readonly<Record<CacheKind, CacheHint>>;
  readonly pageSize: number;
  readonly requestStateTtlMs: number;
  readonly clientRequestTimeoutMs: number;
  readonly maxSchemaNodes: number | undefined;
  readonly scopes: ServerScopes;
  readonly toolSearch: ToolSearch | undefined;
  readonly tasks: {
    readonly ttlMs: number | null;
    readonly pollIntervalMs: number;
    readonly maxPerCaller: number;
    readonly maxStoredPerCaller: number;
    readonly maxStored: number;
  };
}

/** `options` as the server keeps them; a DefinitionError for a setting it cannot serve with. */
export function settingsOf(options: ServerOptions): Settings {
  const { name, version, title, description, websiteUrl, icons } = options;
  const info: Implementation = { name, version };
  if (title !== undefined) info.title = title;
  if (description !== undefined) info.description = description;
  if (websiteUrl !== undefined) info.websiteUrl = websiteUrl;
  if (icons !== undefined) info.icons = icons;
  const pageSize = options.pageSize ?? Number.POSITIVE_INFINITY;
  if (!(pageSize >= 1)) throw new DefinitionError(`pageSize must be at least 1, not ${pageSize}`);
  const { maxSchemaNodes } = options;
  if (maxSchemaNodes !== undefined && !(maxSchemaNodes >= 1)) {
    throw new DefinitionError(`maxSchemaNodes must be at least 1, not ${maxSchemaNodes}`);
  }
  return {
    info,
    instructions: options.instructions,
    cache: serverCacheHints(options.cache),
    pageSize,
    requestStateTtlMs: options.requestStateTtlMs ?? 10 * 60_000,
    clientRequestTimeoutMs: options.clientRequestTimeoutMs ?? 5 * 60_000,
    maxSchemaNodes,
    scopes: {
      required: checkScopes("The server's", options.scopes),
      hierarchy: ScopeHierarchy.of(options.impliedScopes),
    },
    toolSearch: toolSearchOf(options.toolSearch),
    tasks: taskDefaultsOf(options.tasks),
  };
}
