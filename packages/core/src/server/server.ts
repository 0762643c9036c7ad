import type { ConnectOptions } from "../connection/connect-options.js";
import { Connection } from "../connection/connection.js";
import { ResourceWatches } from "../connection/resource-watches.js";
import type { ConnectionListener, ServerCore } from "../connection/server-core.js";
import type { ScopeSource } from "../context/context-init.js";
import type { ErrorReport, LogEntry, Logger } from "../context/logger.js";
import type { Store } from "../context/store.js";
import { StoreHub } from "../context/store-hub.js";
import { serverStore } from "../context/store-scopes.js";
import type { Engine } from "../engine/engine.js";
import type { Middleware } from "../middleware/compose.js";
import type { CacheHint, CacheKind, StampedResult } from "../protocol/cache-hints.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type {
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "../registry/definitions.js";
import {
  type Audience,
  type ChangeKind,
  type HandleOp,
  type Registered,
  type RegisteredKind,
  Router,
} from "../registry/router.js";
import type { SkillDefinition } from "../registry/skill-compile.js";
import type { RegisteredSkill } from "../registry/skills.js";
import type { ToolSearch } from "../registry/tool-search.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import { DefinitionError } from "../wire/errors.js";
import type { MaybePromise } from "../wire/maybe.js";
import { Sealer } from "../wire/seal.js";
import type { Implementation, ServerCapabilities } from "../wire/types.js";
import { type Announcement, EngineLink } from "./engine-link.js";
import { ServerIdentity } from "./identity.js";
import { ListChanges } from "./list-changes.js";
import { type ServerOptions, settingsOf } from "./options.js";
import { page } from "./pages.js";
import { type Servable, type Server, toServer } from "./servable.js";
import { ServerLog } from "./server-log.js";
import { watchStoreKeys } from "./store-keys.js";
import { TaskRunner } from "./task-runner.js";

/** The server `createServer` makes: what transports and connections are given as `Server` and `ServerCore`. */
export class ServerImpl implements Server, ServerCore {
  readonly info: Implementation;
  readonly router: Router;
  readonly sealer: Sealer;
  readonly requestStateTtlMs: number;
  readonly clientRequestTimeoutMs: number;
  readonly tasks: TaskRunner;
  readonly storeHub: StoreHub;
  readonly watches = new ResourceWatches((entry) => this.log(entry));
  readonly toolSearch: ToolSearch | undefined;
  readonly #identity: ServerIdentity;
  readonly #pageSize: number;
  readonly #listChanges = new ListChanges((kind, names, audience, at) =>
    this.#link.announce({ type: "listChanged", kind, names, audience }, at),
  );
  readonly #parents = new Set<ServerImpl>();
  readonly #log: ServerLog;
  // Each mount of this server in another, with its prefix: how its keys are named there.
  readonly #mountedAs: { parent: ServerImpl; prefix: string }[] = [];
  readonly #link: EngineLink;
  readonly #middleware: Middleware[] = [];
  #orphans: (() => unknown) | undefined;
  readonly #scopeSources: readonly [ScopeSource, ScopeSource];

  constructor(options: ServerOptions) {
    const settings = settingsOf(options);
    this.info = settings.info;
    this.#pageSize = settings.pageSize;
    this.toolSearch = settings.toolSearch;
    this.requestStateTtlMs = settings.requestStateTtlMs;
    this.clientRequestTimeoutMs = settings.clientRequestTimeoutMs;
    this.sealer = new Sealer(options.stateKey);
    this.#log = new ServerLog(options.logger, options.onError, this.#parents);
    this.router = new Router(
      this.log.bind(this),
      (kind, audience, keys) => this.#changed(kind, audience, keys),
      settings.cache,
      (kind, key, op) => this.#handled(kind, key, op),
      settings.maxSchemaNodes,
      settings.scopes,
    );
    const hierarchy = () => this.router.hierarchy();
    this.#scopeSources = [
      { everyScope: false, hierarchy },
      { everyScope: true, hierarchy },
    ];
    this.#identity = new ServerIdentity(this.info, settings.instructions, this.router);
    const host = {
      name: this.info.name,
      router: this.router,
      listChanges: this.#listChanges,
      log: this.log.bind(this),
    };
    this.#link = new EngineLink(host, options.engine);
    this.tasks = new TaskRunner(
      () => this.#link.engine,
      () => this.startEngine(),
      settings.tasks,
      this.log.bind(this),
      () => this.router.tasking(),
    );
    this.storeHub = new StoreHub(
      () => this.#link.engine,
      () => this.startEngine(),
      this.log.bind(this),
    );
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
    // A skill's URI and entry are its server's own: skills/list of the server mounting it would not show them.
    if (other.router.skills.size > 0) {
      throw new DefinitionError(
        `mount("${prefix}"): server "${other.info.name}" has skills, which a module cannot serve; register them on the server that mounts it`,
      );
    }
    this.router.mount(
      prefix,
      other.router,
      `server "${other.info.name}" (mounted at "${prefix}")`,
      () => other.middleware,
    );
    other.#parents.add(this);
    other.#mountedAs.push({ parent: this, prefix });
    return this;
  }

  get engine(): Engine {
    return this.#link.engine;
  }

  get store(): Store {
    return serverStore(this.storeHub);
  }

  startEngine(): MaybePromise<void> {
    const started = this.#link.start();
    if (this.#orphans === undefined) {
      // Once per server, once started: the tasks of processes that stopped are failed by a survivor.
      const watch = () => {
        this.#orphans ??= this.tasks.watchOrphans();
      };
      if (started === undefined) watch();
      else started.then(watch, () => {});
    }
    return started;
  }

  /** See `defaultEngine`. */
  engineOr(make: () => Engine): Engine {
    return this.#link.engineOr(make);
  }

  /** See `onAnnounce`. */
  onAnnounce(listener: (announcement: Announcement) => void): () => void {
    return this.#link.listen(listener);
  }

  tool<I extends InputSchema | undefined>(definition: ToolDefinition<I>): Registered<ToolDefinition<I>> {
    return this.router.addTool(definition as ToolDefinition<InputSchema | undefined>) as never;
  }

  resource(
    definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>,
  ): Registered<never> {
    const registered = this.router.addResource(definition as StaticResourceDefinition);
    watchStoreKeys(this.store, definition, (uri) => this.resourceUpdated(uri));
    return registered as never;
  }

  prompt<A extends InputSchema | undefined>(definition: PromptDefinition<A>): Registered<PromptDefinition<A>> {
    return this.router.addPrompt(definition as PromptDefinition<InputSchema | undefined>) as never;
  }

  skill(definition: SkillDefinition): RegisteredSkill {
    if (this.#mountedAs.length > 0) {
      throw new DefinitionError(
        `server "${this.info.name}" is mounted in another, and a module cannot serve skills; register the skill on the server that mounts it`,
      );
    }
    return this.router.skills.add(definition);
  }

  registered(kind: RegisteredKind, key: string): Registered<never> | undefined {
    return this.router.registered(kind, key);
  }

  capabilities(): ServerCapabilities {
    return structuredClone(this.router.capabilities());
  }

  scopeSource(everyScope: boolean): ScopeSource {
    return this.#scopeSources[everyScope ? 1 : 0];
  }

  connect(options: ConnectOptions): Connection {
    return new Connection(this, options);
  }

  attach(listener: ConnectionListener): void {
    this.#listChanges.attach(listener);
  }

  detach(listener: ConnectionListener): void {
    this.#listChanges.detach(listener);
  }

  // A mounted module's changes are its parents' changes too; one heard from another process is told there.
  #changed(kind: ChangeKind, audience: Audience, keys: readonly string[]): void {
    for (const { parent, prefix } of this.#mountedAs) {
      parent.router.mountedChanged(kind, audience, kind === "resources" ? keys : keys.map((key) => `${prefix}.${key}`));
    }
    if (!this.#link.hearing) this.#listChanges.changed(kind, audience, keys);
  }

  // A handle's op, here or in a mounted module (named as this server names it).
  #handled(kind: RegisteredKind, key: string, op: HandleOp): void {
    for (const { parent, prefix } of this.#mountedAs) {
      parent.#handled(kind, kind === "tool" || kind === "prompt" ? `${prefix}.${key}` : key, op);
    }
    this.#link.handled(kind, key, op);
  }

  resourceUpdated(uri: string): void {
    this.#listChanges.resourceUpdated(uri);
    this.#link.announce({ type: "resourceUpdated", uri });
    for (const parent of this.#parents) parent.resourceUpdated(uri);
  }

  setLogger(logger: Logger | undefined): this {
    this.#log.logger = logger;
    return this;
  }

  get logger(): Logger | undefined {
    return this.#log.logger;
  }

  onError(hook: ((error: unknown, where: ErrorReport) => void) | undefined): this {
    this.#log.onError = hook;
    return this;
  }

  get errorHook(): ((error: unknown, where: ErrorReport) => void) | undefined {
    return this.#log.onError;
  }

  serverInfo(version: ProtocolVersion): Implementation {
    return this.#identity.serverInfo(version);
  }

  discoverResult(handshake = true): Record<string, unknown> {
    return this.#identity.discoverResult(handshake);
  }

  initializeResult(version: ProtocolVersion): Record<string, unknown> {
    return this.#identity.initializeResult(version);
  }

  stamp(
    result: Record<string, unknown>,
    cache: CacheKind | undefined,
    perCaller = false,
    fallback?: CacheHint,
  ): Record<string, unknown> | StampedResult {
    return this.#identity.stamp(result, cache, perCaller, fallback);
  }

  page(key: string, items: unknown[], cursor: string | undefined): MaybePromise<Record<string, unknown>> {
    return page(this.sealer, this.#pageSize, key, items, cursor);
  }

  log(entry: LogEntry): boolean {
    return this.#log.log(entry);
  }
}

/**
 * Create a server from its identity; register tools, resources and prompts on it, then serve it
 * with a transport (or test it with `createTestClient`).
 * @example
 * ```ts source="examples/server.ts#createServer"
 * const server = createServer({ name: "notes", version: "1.0.0" });
 * ```
 */
export function createServer(options: ServerOptions): Server {
  return new ServerImpl(options);
}
