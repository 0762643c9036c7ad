import type { ConnectOptions } from "../connection/connect-options.js";
import { Connection } from "../connection/connection.js";
import type { ConnectionListener, ServerCore } from "../connection/server-core.js";
import type { ErrorReport, LogEntry, Logger } from "../context/logger.js";
import type { Middleware } from "../middleware/compose.js";
import { CACHE_HINT } from "../protocol/results.js";
import { featuresOf } from "../protocol/revision.js";
import { HANDSHAKE_VERSIONS, MetaKey, type ProtocolVersion, STATELESS_VERSIONS } from "../protocol/versions.js";
import type {
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "../registry/definitions.js";
import { type Audience, type ChangeKind, type Registered, type RegisteredKind, Router } from "../registry/router.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import { DefinitionError, McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { Sealer } from "../wire/seal.js";
import type { CacheHint, CacheKind, Icon, Implementation, ServerCapabilities } from "../wire/types.js";

export type { ErrorReport };

/** What `createServer` takes: the server's identity and its server-wide settings. */
export interface ServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
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
   * The HMAC key that seals 2026-07-28 `requestState` and list cursors (at least 16 bytes). Give every process
   * behind one load balancer the same key; without one, a random key is made at start.
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
  /** Modules served under prefixes (see `server.mount`): `{ github: new GitHubTools() }`. */
  mount?: Readonly<Record<string, Servable>>;
}

const DEFAULT_CACHE: Record<CacheKind, CacheHint> = {
  discover: { ttlMs: 60_000, cacheScope: "public" },
  list: { ttlMs: 60_000, cacheScope: "public" },
  read: { ttlMs: 0, cacheScope: "private" },
};

const CURSOR = "toolsmith.cursor.v1";

// What names a listed item uniquely: a tool's or prompt's name, a resource's URI, a template's URI template.
function identity(item: unknown): string | undefined {
  const { uri, uriTemplate, name } = (item ?? {}) as { uri?: unknown; uriTemplate?: unknown; name?: unknown };
  const found = uriTemplate ?? uri ?? name;
  return typeof found === "string" ? found : undefined;
}

/**
 * An MCP server: a registry of tools, resources and prompts that serves any number of connections.
 * @example
 * const server = createServer({ name: "demo", version: "1.0.0" });
 * server.tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
 */
export interface Server {
  readonly info: Implementation;
  /** Register a tool; throws a DefinitionError that says what to change when the definition is wrong. */
  tool<I extends InputSchema | undefined>(definition: ToolDefinition<I>): Registered<ToolDefinition<I>>;
  /** Register a static resource (`uri`) or a resource template (`uriTemplate`). */
  resource(definition: StaticResourceDefinition): Registered<StaticResourceDefinition>;
  resource<I extends InputSchema | undefined = undefined>(
    definition: ResourceTemplateDefinition<I>,
  ): Registered<ResourceTemplateDefinition<I>>;
  /** Register a prompt. */
  prompt<A extends InputSchema | undefined>(definition: PromptDefinition<A>): Registered<PromptDefinition<A>>;
  /** The live handle of what is registered under a name, URI or URI template (decorated methods too). */
  registered(kind: "tool", name: string): Registered<ToolDefinition> | undefined;
  registered(kind: "prompt", name: string): Registered<PromptDefinition> | undefined;
  registered(kind: "resource", uri: string): Registered<StaticResourceDefinition> | undefined;
  registered(kind: "resourceTemplate", uriTemplate: string): Registered<ResourceTemplateDefinition> | undefined;
  /** What this server advertises, derived from what is registered. */
  capabilities(): ServerCapabilities;
  /** A new connection: one dispatcher with its own era and requests in flight, writing through `send`. */
  connect(options: ConnectOptions): Connection;
  /** Tell every client subscribed to `uri` that it changed (handshake era subscriptions, 2026-07-28 listen streams). */
  resourceUpdated(uri: string): void;
  /**
   * Run `middleware` around every tool call, read, prompt, completion and list, over every transport and in both
   * eras; the first added is outermost.
   */
  use(...middleware: Middleware[]): this;
  /**
   * Serve another server (or server class instance) as a module: its tools and prompts as `prefix.name`, its
   * resources at their own URIs. Its changes reach this server's clients. A name or URI served twice fails here,
   * naming both.
   * @example
   * const app = createServer({ name: "app", version: "1.0.0" }).mount("github", new GitHubTools());
   */
  mount(prefix: string, module: Servable): this;
  /**
   * Write to the server's own log: its logger and error hook, or, for a mounted module with neither, those of the
   * servers it is mounted in. True when a logger or hook heard it.
   */
  log(entry: LogEntry): boolean;
  /** Replace the server's own logger; transports install theirs only when none is set. */
  setLogger(logger: Logger | undefined): this;
  readonly logger: Logger | undefined;
  /** Set the error hook (see `ServerOptions.onError`). */
  onError(hook: ((error: unknown, where: ErrorReport) => void) | undefined): this;
  /** The error hook in force, if any. */
  readonly errorHook: ((error: unknown, where: ErrorReport) => void) | undefined;
}

class ServerImpl implements Server, ServerCore {
  readonly info: Implementation;
  readonly router: Router;
  readonly sealer: Sealer;
  readonly requestStateTtlMs: number;
  readonly clientRequestTimeoutMs: number;
  readonly #instructions: string | undefined;
  readonly #cache: Record<CacheKind, CacheHint>;
  readonly #pageSize: number;
  readonly #serverInfo = new Map<ProtocolVersion, Implementation>();
  readonly #metaServerInfo: Record<string, unknown>;
  // Each listener with the change count when it attached: it hears only of changes made after that.
  readonly #listeners = new Map<ConnectionListener, number>();
  // Per kind: the change count of the latest change, and who may hear of the changes together.
  readonly #pendingChanges = new Map<ChangeKind, { at: number; audience: Audience }>();
  readonly #parents = new Set<ServerImpl>();
  readonly #middleware: Middleware[] = [];
  #changes = 0;
  #logger: Logger | undefined;
  #onError: ((error: unknown, where: ErrorReport) => void) | undefined;

  constructor(options: ServerOptions) {
    const { name, version, title, description, websiteUrl, icons, instructions, cache, onError, logger } = options;
    this.info = { name, version };
    if (title !== undefined) this.info.title = title;
    if (description !== undefined) this.info.description = description;
    if (websiteUrl !== undefined) this.info.websiteUrl = websiteUrl;
    if (icons !== undefined) this.info.icons = icons;
    this.#instructions = instructions;
    this.#cache = { ...DEFAULT_CACHE, ...cache };
    const pageSize = options.pageSize ?? Number.POSITIVE_INFINITY;
    if (!(pageSize >= 1)) throw new DefinitionError(`pageSize must be at least 1, not ${pageSize}`);
    this.#pageSize = pageSize;
    this.sealer = new Sealer(options.stateKey);
    this.requestStateTtlMs = options.requestStateTtlMs ?? 10 * 60_000;
    this.clientRequestTimeoutMs = options.clientRequestTimeoutMs ?? 5 * 60_000;
    this.#onError = onError;
    this.#logger = logger;
    this.#metaServerInfo = { [MetaKey.serverInfo]: this.info };
    this.router = new Router(this.log.bind(this), (kind, audience) => this.#changed(kind, audience));
    if (options.use) this.use(...options.use);
    for (const [prefix, module] of Object.entries(options.mount ?? {})) this.mount(prefix, module);
  }

  get middleware(): readonly Middleware[] {
    return this.#middleware;
  }

  use(...middleware: Middleware[]): this {
    for (const one of middleware) {
      if (typeof one !== "function")
        throw new DefinitionError("server.use takes middleware functions: (operation, next) => result");
      this.#middleware.push(one);
    }
    return this;
  }

  mount(prefix: string, module: Servable): this {
    const other = toServer(module);
    if (!(other instanceof ServerImpl))
      throw new DefinitionError(`mount("${prefix}") takes a Toolsmith server or server class instance`);
    this.router.mount(
      prefix,
      other.router,
      `server "${other.info.name}" (mounted at "${prefix}")`,
      () => other.middleware,
    );
    other.#parents.add(this);
    return this;
  }

  tool<I extends InputSchema | undefined>(definition: ToolDefinition<I>): Registered<ToolDefinition<I>> {
    return this.router.addTool(definition as ToolDefinition<InputSchema | undefined>) as never;
  }

  resource(
    definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>,
  ): Registered<never> {
    return this.router.addResource(definition as StaticResourceDefinition) as never;
  }

  prompt<A extends InputSchema | undefined>(definition: PromptDefinition<A>): Registered<PromptDefinition<A>> {
    return this.router.addPrompt(definition as PromptDefinition<InputSchema | undefined>) as never;
  }

  registered(kind: RegisteredKind, key: string): Registered<never> | undefined {
    return this.router.registered(kind, key);
  }

  capabilities(): ServerCapabilities {
    return structuredClone(this.router.capabilities());
  }

  connect(options: ConnectOptions): Connection {
    return new Connection(this, options);
  }

  attach(listener: ConnectionListener): void {
    this.#listeners.set(listener, this.#changes);
  }

  detach(listener: ConnectionListener): void {
    this.#listeners.delete(listener);
  }

  // Changes made together (a batch of registrations) reach each client as one notification per kind, and a
  // connection that attached after the last of them (it listed what is there now) hears nothing of them.
  #changed(kind: ChangeKind, audience: Audience): void {
    for (const parent of this.#parents) parent.router.mountedChanged(kind, audience);
    if (this.#pendingChanges.size === 0) {
      queueMicrotask(() => {
        const kinds = [...this.#pendingChanges];
        this.#pendingChanges.clear();
        for (const [listener, since] of this.#listeners) {
          for (const [changed, { at, audience: who }] of kinds) if (at > since) listener.listChanged(changed, who);
        }
      });
    }
    const before = this.#pendingChanges.get(kind);
    // Changes told together reach everyone any of them may reach.
    const who = before === undefined ? audience : before.audience && audience && [...before.audience, ...audience];
    this.#pendingChanges.set(kind, { at: ++this.#changes, audience: who });
  }

  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners.keys()) listener.resourceUpdated(uri);
    for (const parent of this.#parents) parent.resourceUpdated(uri);
  }

  setLogger(logger: Logger | undefined): this {
    this.#logger = logger;
    return this;
  }

  get logger(): Logger | undefined {
    return this.#logger;
  }

  onError(hook: ((error: unknown, where: ErrorReport) => void) | undefined): this {
    this.#onError = hook;
    return this;
  }

  get errorHook(): ((error: unknown, where: ErrorReport) => void) | undefined {
    return this.#onError;
  }

  serverInfo(version: ProtocolVersion): Implementation {
    let info = this.#serverInfo.get(version);
    if (!info) {
      const features = featuresOf(version);
      info = { ...this.info };
      if (!features.titlesAndStructuredOutput) delete info.title;
      if (!features.icons) {
        delete info.icons;
        delete info.description;
        delete info.websiteUrl;
      }
      this.#serverInfo.set(version, info);
    }
    return info;
  }

  discoverResult(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS],
      capabilities: this.router.capabilities(),
    };
    if (this.#instructions !== undefined) result.instructions = this.#instructions;
    return result;
  }

  initializeResult(version: ProtocolVersion): Record<string, unknown> {
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: this.router.capabilities(),
      serverInfo: this.serverInfo(version),
    };
    if (this.#instructions !== undefined) result.instructions = this.#instructions;
    return result;
  }

  complete(result: Record<string, unknown>, cache: CacheKind | undefined, perCaller = false): Record<string, unknown> {
    const { [CACHE_HINT]: own, ...rest } = result as Record<string | symbol, unknown>;
    const out = rest as Record<string, unknown>;
    out.resultType ??= "complete";
    if (cache !== undefined && out.resultType === "complete") {
      const hint = (own as CacheHint | undefined) ?? this.#cache[cache];
      out.ttlMs = hint.ttlMs;
      out.cacheScope = perCaller ? "private" : hint.cacheScope;
    }
    out._meta = isPlainObject(out._meta) ? { ...out._meta, ...this.#metaServerInfo } : this.#metaServerInfo;
    return out;
  }

  page(key: string, items: unknown[], cursor: string | undefined): MaybePromise<Record<string, unknown>> {
    const size = this.#pageSize;
    if (cursor === undefined && items.length <= size) return { [key]: items };
    const from = (offset: number): MaybePromise<Record<string, unknown>> => {
      const end = offset + size;
      const result: Record<string, unknown> = { [key]: items.slice(offset, end) };
      if (end >= items.length) return result;
      // The last item sent anchors the next page: items shown or hidden before it since (a guard, a registration)
      // neither repeat nor skip one; its offset is the fallback when it is gone.
      const after = identity(items[end - 1]);
      return this.sealer.seal(CURSOR, { k: key, o: end, a: after }).then((next) => ({ ...result, nextCursor: next }));
    };
    if (cursor === undefined) return from(0);
    return this.sealer.open(CURSOR, cursor).then((opened) => {
      const position = opened as { k?: unknown; o?: unknown; a?: unknown } | undefined;
      if (position?.k !== key || !Number.isSafeInteger(position.o) || (position.o as number) < 0) {
        throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
      }
      const anchor = typeof position.a === "string" ? items.findIndex((item) => identity(item) === position.a) : -1;
      return from(anchor >= 0 ? anchor + 1 : Math.min(position.o as number, items.length));
    });
  }

  log(entry: LogEntry): boolean {
    let heard = false;
    try {
      if (this.#logger) {
        heard = true;
        this.#logger(entry);
      }
      if (entry.error !== undefined && this.#onError) {
        heard = true;
        const where: ErrorReport = { method: entry.method ?? "(server)" };
        if (entry.requestId !== undefined) where.requestId = entry.requestId;
        if (entry.tool !== undefined) where.tool = entry.tool;
        this.#onError(entry.error, where);
      }
    } catch {
      // A failing logger must not take a request down with it.
    }
    // A module with no log of its own reports to the servers it is mounted in, whose transports installed theirs.
    if (!heard) for (const parent of this.#parents) heard = parent.log(entry) || heard;
    return heard;
  }
}

/** A server, or something that makes one (a decorated server class instance): what transports serve. */
export type Servable = Server | { toServer(): Server };

/** The server behind a Servable. */
export function toServer(servable: Servable): Server {
  return "toServer" in servable && typeof servable.toServer === "function" ? servable.toServer() : (servable as Server);
}

/**
 * Create a server from its identity; register tools, resources and prompts on it, then serve it
 * with a transport (or test it with `createTestClient`).
 * @example
 * const server = createServer({ name: "notes", version: "1.0.0" });
 */
export function createServer(options: ServerOptions): Server {
  return new ServerImpl(options);
}
