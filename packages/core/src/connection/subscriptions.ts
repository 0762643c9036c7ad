import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl } from "../context/request-context.js";
import { SESSION_BOUNDS, subscriptionUriRefusal, tooManySubscriptions, utf8Length } from "../engine/session-bounds.js";
import { MetaKey } from "../protocol/versions.js";
import { allows } from "../registry/guards.js";
import type { Audience, ChangeKind } from "../registry/router.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { ListenFilter } from "./methods.js";
import type { Outlet } from "./outlet.js";
import type { ServerCore } from "./server-core.js";

interface Listen {
  readonly id: RequestId;
  readonly tag: unknown;
  readonly ctx: RequestContextImpl;
  readonly filter: ListenFilter;
  end(): void;
}

/** Who hears of which change: handshake-era resource subscriptions and 2026-07-28 `subscriptions/listen` streams. */
export class Subscriptions {
  readonly #core: ServerCore;
  readonly #out: Outlet;
  // A subscription remembers who subscribed: an update goes only to a caller who may read the resource.
  readonly #subscriptions = new Map<string, RequestContextImpl>();
  // Each subscribed URI's hold on its resource's `watch` (resource-watches.ts).
  readonly #held = new Map<string, () => void>();
  // The UTF-8 bytes of the subscribed URIs together.
  #bytes = 0;
  readonly #listens = new Map<string, Listen>();

  constructor(core: ServerCore, out: Outlet) {
    this.#core = core;
    this.#out = out;
  }

  subscribe(uri: string, ctx: RequestContextImpl): void {
    this.admit(uri);
    if (!this.#subscriptions.has(uri)) this.#bytes += utf8Length(uri);
    this.#subscriptions.set(uri, ctx);
    this.watch(uri, ctx);
  }

  /** Hold the watch of `uri`'s resource while subscribed (a session's engine may keep the subscription itself). */
  watch(uri: string, ctx: RequestContextImpl): void {
    if (!this.#held.has(uri)) this.#held.set(uri, this.#hold(uri, ctx));
  }

  unwatch(uri: string): void {
    this.#held.get(uri)?.();
    this.#held.delete(uri);
  }

  #hold(uri: string, ctx: RequestContextImpl): () => void {
    return this.#core.watches.hold(uri, this.#core.router.watcherOf(uri, ctx));
  }

  /** Throws what `subscribe` would refuse `uri` with (checked before a session change is told). */
  admit(uri: string): void {
    // Kept for the connection's life: bounded as an engine bounds a session, so a client cannot grow the server.
    const refused = subscriptionUriRefusal(uri);
    if (refused) throw refused;
    if (this.#subscriptions.has(uri)) return;
    if (
      this.#subscriptions.size >= SESSION_BOUNDS.subscriptions ||
      this.#bytes + utf8Length(uri) > SESSION_BOUNDS.subscriptionBytes
    ) {
      throw tooManySubscriptions();
    }
  }

  unsubscribe(uri: string): void {
    if (this.#subscriptions.delete(uri)) this.#bytes -= utf8Length(uri);
    this.unwatch(uri);
  }

  /** The connection closed: its subscriptions hold no resource's watch any more (its listen streams end with it). */
  close(): void {
    for (const release of this.#held.values()) release();
    this.#held.clear();
  }

  /** Acknowledge what of the filter this server can honour, and keep the stream open until it ends. */
  async listen(filter: ListenFilter, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    const capabilities = this.#core.router.capabilities();
    const honoured: ListenFilter = {};
    if (filter.toolsListChanged && capabilities.tools) honoured.toolsListChanged = true;
    if (filter.promptsListChanged && capabilities.prompts) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged && capabilities.resources) honoured.resourcesListChanged = true;
    if (filter.resourceSubscriptions && filter.resourceSubscriptions.length > 0 && capabilities.resources) {
      honoured.resourceSubscriptions = [...filter.resourceSubscriptions];
    }
    // Followed before the acknowledgement, which names only the caller's own tasks that exist.
    const tasks = filter.taskIds === undefined ? undefined : await this.#core.tasks.watch(filter.taskIds, ctx);
    if (tasks && tasks.taskIds.length > 0) honoured.taskIds = [...tasks.taskIds];
    const id = ctx.requestId;
    const { key } = ctx;
    const meta = { [MetaKey.subscriptionId]: id };
    if (ctx.signal.aborted) {
      tasks?.stop();
      return { _meta: meta };
    }
    this.#out.notify("notifications/subscriptions/acknowledged", { _meta: meta, notifications: honoured }, id, ctx.tag);
    // Only task changes on this stream for tasks: never their progress or logs.
    tasks?.start((task) => this.#out.notify("notifications/tasks", { ...task, _meta: meta }, id, ctx.tag));
    return new Promise((resolve) => {
      // Ended by the server (its closing result) or by a cancellation (no reply): the stream stops either way.
      // As many URIs held as a session may subscribe to, each once; the rest are told of updates all the same.
      const uris = new Set((honoured.resourceSubscriptions ?? []).filter((uri) => !subscriptionUriRefusal(uri)));
      const holds = [...uris].slice(0, SESSION_BOUNDS.subscriptions).map((uri) => this.#hold(uri, ctx));
      const end = () => {
        tasks?.stop();
        for (const release of holds.splice(0)) release();
        if (this.#listens.get(key)?.filter === honoured) this.#listens.delete(key);
        resolve({ _meta: meta });
      };
      this.#listens.set(key, { id, tag: ctx.tag, ctx, filter: honoured, end });
      ctx.signal.addEventListener("abort", end, { once: true });
    });
  }

  /** End every listen stream with its result. */
  endAll(): void {
    for (const listen of [...this.#listens.values()]) listen.end();
  }

  /**
   * `session`: the latest request of an initialized handshake-era session, which is told of changes directly;
   * `audience`: who may hear of this one (a caller one of its guards lets see a changed item; undefined: anyone).
   */
  listChanged(kind: ChangeKind, session: RequestContextImpl | undefined, audience: Audience): void {
    const method = `notifications/${kind}/list_changed`;
    const report = (entry: LogEntry) => this.#core.log(entry);
    const hears = (ctx: RequestContextImpl) =>
      audience === undefined || audience.some((guard) => allows(guard, ctx, report));
    if (session && hears(session)) this.#out.emit({ jsonrpc: "2.0", method }, { kind: "notification" });
    const wanted =
      kind === "tools" ? "toolsListChanged" : kind === "prompts" ? "promptsListChanged" : "resourcesListChanged";
    for (const listen of this.#listens.values()) {
      if (listen.filter[wanted] && hears(listen.ctx)) {
        this.#out.notify(method, { _meta: { [MetaKey.subscriptionId]: listen.id } }, listen.id, listen.tag);
      }
    }
  }

  resourceUpdated(uri: string, operating: boolean): void {
    const router = this.#core.router;
    const subscriber = this.#subscriptions.get(uri);
    if (operating && subscriber && router.canRead(uri, subscriber)) {
      this.#out.emit(
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } },
        { kind: "notification" },
      );
    }
    for (const listen of this.#listens.values()) {
      if (listen.filter.resourceSubscriptions?.includes(uri) && router.canRead(uri, listen.ctx)) {
        this.#out.notify(
          "notifications/resources/updated",
          { uri, _meta: { [MetaKey.subscriptionId]: listen.id } },
          listen.id,
          listen.tag,
        );
      }
    }
  }
}
