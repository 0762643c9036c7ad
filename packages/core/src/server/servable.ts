import type { ConnectOptions } from "../connection/connect-options.js";
import type { Connection } from "../connection/connection.js";
import type { ErrorReport, LogEntry, Logger } from "../context/logger.js";
import type { Store } from "../context/store.js";
import type { Engine } from "../engine/engine.js";
import type { Middleware } from "../middleware/compose.js";
import type {
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "../registry/definitions.js";
import type { Registered } from "../registry/router.js";
import type { SkillDefinition } from "../registry/skill-compile.js";
import type { RegisteredSkill } from "../registry/skills.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation, ServerCapabilities } from "../wire/types.js";

/**
 * An MCP server: a registry of tools, resources and prompts that serves any number of connections.
 * @example
 * ```ts source="examples/server.ts#Server"
 * const server = createServer({ name: "demo", version: "1.0.0" });
 * server.tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
 * ```
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
  /**
   * Register a skill (the skills extension, `io.modelcontextprotocol/skills`): its files become `skill://` resources,
   * and `skills/list`, `skills/get` and `resources/directory/read` serve it. Checked now: a DefinitionError names the
   * file and what to change.
   */
  skill(definition: SkillDefinition): RegisteredSkill;
  /** The live handle of what is registered under a name, URI or URI template (decorated methods too). */
  registered(kind: "tool", name: string): Registered<ToolDefinition> | undefined;
  registered(kind: "prompt", name: string): Registered<PromptDefinition> | undefined;
  registered(kind: "resource", uri: string): Registered<StaticResourceDefinition> | undefined;
  registered(kind: "resourceTemplate", uriTemplate: string): Registered<ResourceTemplateDefinition> | undefined;
  /** What this server advertises, derived from what is registered. */
  capabilities(): ServerCapabilities;
  /** A new connection: one dispatcher with its own era and requests in flight, writing through `send`. */
  connect(options: ConnectOptions): Connection;
  /**
   * The server's own data, kept by its engine (shared by its processes with a shared engine): what `ctx.store` is in
   * a handler, for use outside one (at startup, in a resource list). Its first use starts the engine.
   */
  readonly store: Store;
  /** Its engine (`ServerOptions.engine`, else an in-memory one made on first use). */
  readonly engine: Engine;
  /**
   * Start the engine, once (later calls return the first's outcome): with a shared one, apply the handle ops the
   * server's other processes made and hear their changes. Transports call it before serving; synchronous with the
   * in-memory engine.
   */
  startEngine(): MaybePromise<void>;
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
   * ```ts source="examples/server.ts#Server.mount"
   * const app = createServer({ name: "app", version: "1.0.0" }).mount("github", gitHubTools);
   * ```
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

/** A server, or something that makes one (a decorated server class instance): what transports serve. */
export type Servable = Server | { toServer(): Server };

/** The server behind a Servable. */
export function toServer(servable: Servable): Server {
  return "toServer" in servable && typeof servable.toServer === "function" ? servable.toServer() : (servable as Server);
}
