import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import { isPlainObject, type RequestId } from "./json-rpc.js";
import { CACHE_HINT, type CacheKind, type Method } from "./methods.js";
import { featuresOf, HANDSHAKE_VERSIONS, MetaKey, type ProtocolVersion, STATELESS_VERSIONS } from "./protocol.js";
import { Router } from "./router.js";
import type { InputSchema } from "./schema-adapter.js";
import { Session } from "./session.js";
import type { CacheHint, Icon, Implementation, ServerCapabilities } from "./types.js";

/** Where an unexpected error happened, for logging. */
export interface ErrorReport {
  method: string;
  requestId?: RequestId;
  tool?: string;
}

export interface ServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Told to the client at `initialize` or `server/discover`: how to use this server. */
  instructions?: string;
  /** Caching hints for 2026-07-28 results (defaults: discover and lists 60 s public, reads 0 ms private). */
  cache?: Partial<Record<CacheKind, CacheHint>>;
  /**
   * Called with every error that does not reach the wire as itself: a handler that threw
   * (its message becomes an `isError` result or a generic -32603). Transports log it to stderr by default.
   */
  onError?: (error: unknown, where: ErrorReport) => void;
}

const DEFAULT_CACHE: Record<CacheKind, CacheHint> = {
  discover: { ttlMs: 60_000, cacheScope: "public" },
  list: { ttlMs: 60_000, cacheScope: "public" },
  read: { ttlMs: 0, cacheScope: "private" },
};

/** What a Session needs from its server: shared by every connection, built once. */
export interface ServerCore {
  readonly router: Router;
  readonly instructions: string | undefined;
  readonly discover: Method;
  serverInfo(version: ProtocolVersion): Implementation;
  complete(result: Record<string, unknown>, cache: CacheKind | undefined): Record<string, unknown>;
  report(error: unknown, where: ErrorReport): void;
}

/**
 * An MCP server: a registry of tools, resources and prompts that serves any number of connections.
 * @example
 * const server = createServer({ name: "demo", version: "1.0.0" })
 *   .tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
 */
export interface Server {
  readonly info: Implementation;
  /** Register a tool; throws a DefinitionError that says what to change when the definition is wrong. */
  tool<I extends InputSchema | undefined>(definition: ToolDefinition<I>): this;
  /** Register a static resource (`uri`) or a resource template (`uriTemplate`). */
  resource(definition: StaticResourceDefinition): this;
  resource<I extends InputSchema | undefined = undefined>(definition: ResourceTemplateDefinition<I>): this;
  /** Register a prompt. */
  prompt<A extends InputSchema | undefined>(definition: PromptDefinition<A>): this;
  /** What this server advertises, derived from what is registered. */
  capabilities(): ServerCapabilities;
  /** A new connection: one dispatcher with its own era and requests in flight. */
  connect(): Session;
  /** Set the error hook; transports install a default that logs to stderr only when none is set. */
  onError(hook: ((error: unknown, where: ErrorReport) => void) | undefined): this;
  /** The error hook in force, if any. */
  readonly errorHook: ((error: unknown, where: ErrorReport) => void) | undefined;
}

class ServerImpl implements Server, ServerCore {
  readonly info: Implementation;
  readonly router: Router;
  readonly instructions: string | undefined;
  readonly discover: Method;
  readonly #cache: Record<CacheKind, CacheHint>;
  readonly #serverInfo = new Map<ProtocolVersion, Implementation>();
  readonly #metaServerInfo: Record<string, unknown>;
  #onError: ((error: unknown, where: ErrorReport) => void) | undefined;

  constructor(options: ServerOptions) {
    const { name, version, title, description, websiteUrl, icons, instructions, cache, onError } = options;
    this.info = { name, version };
    if (title !== undefined) this.info.title = title;
    if (description !== undefined) this.info.description = description;
    if (websiteUrl !== undefined) this.info.websiteUrl = websiteUrl;
    if (icons !== undefined) this.info.icons = icons;
    this.instructions = instructions;
    this.#cache = { ...DEFAULT_CACHE, ...cache };
    this.#onError = onError;
    this.#metaServerInfo = { [MetaKey.serverInfo]: this.info };
    this.router = new Router(this.report.bind(this));
    this.discover = {
      cache: "discover",
      run: () => {
        const result: Record<string, unknown> = {
          supportedVersions: [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS],
          capabilities: this.router.capabilities(),
        };
        if (this.instructions !== undefined) result.instructions = this.instructions;
        return result;
      },
    };
  }

  tool<I extends InputSchema | undefined>(definition: ToolDefinition<I>): this {
    this.router.addTool(definition as ToolDefinition<InputSchema | undefined>);
    return this;
  }

  resource(definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>): this {
    this.router.addResource(definition as ResourceDefinition);
    return this;
  }

  prompt<A extends InputSchema | undefined>(definition: PromptDefinition<A>): this {
    this.router.addPrompt(definition as PromptDefinition<InputSchema | undefined>);
    return this;
  }

  capabilities(): ServerCapabilities {
    return structuredClone(this.router.capabilities());
  }

  connect(): Session {
    return new Session(this);
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

  complete(result: Record<string, unknown>, cache: CacheKind | undefined): Record<string, unknown> {
    const { [CACHE_HINT]: own, ...rest } = result as Record<string | symbol, unknown>;
    const out = rest as Record<string, unknown>;
    out.resultType = "complete";
    if (cache !== undefined) {
      const hint = (own as CacheHint | undefined) ?? this.#cache[cache];
      out.ttlMs = hint.ttlMs;
      out.cacheScope = hint.cacheScope;
    }
    out._meta = isPlainObject(out._meta) ? { ...out._meta, ...this.#metaServerInfo } : this.#metaServerInfo;
    return out;
  }

  report(error: unknown, where: ErrorReport): void {
    try {
      this.#onError?.(error, where);
    } catch {
      // A failing error hook must not take a request down with it.
    }
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
