import { storeScopePrefix } from "../engine/engine.js";
import type { Era } from "../protocol/era.js";
import { ScopedStore, type Store, type StoreHints } from "./store.js";
import type { StoreHub } from "./store-hub.js";

/**
 * What a handler's `ctx.store` is: the store of the whole server, and, one word away, the store of the caller
 * (`user`: bound to `ctx.auth.subject`, never to anything the client chooses) and of the handshake-era session
 * (`session`: cleared when the session ends). No scope can reach another's keys.
 * @example
 * ```ts source="examples/store.ts#ContextStore"
 * server.tool({
 *   name: "my_notes",
 *   description: "The caller's own notes",
 *   handler: async (_args, ctx) => {
 *     const page = await ctx.store.user.list({ prefix: "notes:", schema: Note, limit: 50 });
 *     return page.items.map(({ value }) => value.text).join("\n");
 *   },
 * });
 * ```
 */
export interface ContextStore extends Store {
  /** The authenticated caller's own store; throws for a caller without a principal (stdio, HTTP without sign-in). */
  readonly user: Store;
  /** The handshake-era session's own store, cleared when it ends; throws in 2026-07-28, which has no session. */
  readonly session: Store;
}

// The server's own scope, made once per hub.
const SERVER_STORES = new WeakMap<StoreHub, Store>();

/** The whole server's store on `hub`. */
export function serverStore(hub: StoreHub): Store {
  let store = SERVER_STORES.get(hub);
  if (store === undefined) {
    store = new ScopedStore(hub, storeScopePrefix("s"));
    SERVER_STORES.set(hub, store);
  }
  return store;
}

/**
 * A request's `ctx.store`: the server's, with its caller's and its session's a property away; all three share the
 * request's own hints (what it last saw of a few records), so an update of what the request just read needs no read.
 */
class RequestStore extends ScopedStore implements ContextStore {
  readonly #hub: StoreHub;
  readonly #hints: StoreHints;
  readonly #subject: string | undefined;
  readonly #session: string | undefined;
  readonly #era: Era;
  #user: Store | undefined;
  #own: Store | undefined;

  constructor(hub: StoreHub, hints: StoreHints, subject: string | undefined, session: string | undefined, era: Era) {
    super(hub, storeScopePrefix("s"), hints);
    this.#hub = hub;
    this.#hints = hints;
    this.#subject = subject;
    this.#session = session;
    this.#era = era;
  }

  get user(): Store {
    if (this.#subject === undefined) {
      throw new Error(
        "ctx.store.user needs an authenticated caller (ctx.auth.subject) and this request has none (stdio, or HTTP without an authenticate hook): use ctx.store (the whole server), or sign callers in",
      );
    }
    this.#user ??= new ScopedStore(this.#hub, storeScopePrefix("u", this.#subject), this.#hints);
    return this.#user;
  }

  get session(): Store {
    if (this.#session === undefined) {
      throw new Error(
        this.#era === "stateless"
          ? "ctx.store.session needs a handshake-era session and a 2026-07-28 request has none: use ctx.store.user (bound to the signed-in caller) or ctx.store"
          : "ctx.store.session has no session here: use ctx.store.user or ctx.store",
      );
    }
    this.#own ??= new ScopedStore(this.#hub, storeScopePrefix("x", this.#session), this.#hints, this.#session);
    return this.#own;
  }
}

/** A request's `ctx.store`: the server's, with its caller's and its session's a property away. */
export function contextStore(
  hub: StoreHub,
  subject: string | undefined,
  session: string | undefined,
  era: Era,
): ContextStore {
  return new RequestStore(hub, new Map(), subject, session, era);
}
