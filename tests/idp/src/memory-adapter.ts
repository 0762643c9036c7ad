/** One stored oidc-provider record: its payload and when it expires (ms since the epoch; none when it does not). */
interface Entry {
  payload: Record<string, unknown>;
  expiresAt?: number;
}

/** The models an authorization grant hands tokens out under: revoking the grant removes them all. */
const GRANTABLE = new Set(["AccessToken", "AuthorizationCode", "RefreshToken", "ClientCredentials"]);

/**
 * The provider's storage, kept by the fixture rather than oidc-provider's module-wide one, so that two providers in one
 * test file share nothing and a restarted provider (new keys) keeps the clients, grants and tokens of the one before.
 */
export class MemoryStorage {
  readonly #entries = new Map<string, Entry>();

  get(key: string): Record<string, unknown> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  set(key: string, payload: Record<string, unknown>, expiresInSec?: number): void {
    this.#entries.set(key, {
      payload,
      ...(expiresInSec === undefined ? {} : { expiresAt: Date.now() + expiresInSec * 1000 }),
    });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** The first live payload of `model` for which `match` holds. */
  find(model: string, match: (payload: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
    for (const key of this.#entries.keys()) {
      if (!key.startsWith(`${model}:`)) continue;
      const payload = this.get(key);
      if (payload !== undefined && match(payload)) return payload;
    }
    return undefined;
  }

  revokeGrant(grantId: string): void {
    for (const [key, entry] of this.#entries) {
      if (GRANTABLE.has(key.slice(0, key.indexOf(":"))) && entry.payload.grantId === grantId) this.#entries.delete(key);
    }
  }

  /**
   * The adapter class oidc-provider constructs once per model (`new Adapter("AccessToken")`). Unless
   * `keepClientScope`, a registered client is stored without its `scope`, which oidc-provider would otherwise hold it
   * to (RFC 7591 leaves that to the server, and many do not): the official client registers with the scope of its
   * first sign-in, and a step-up asks for more.
   */
  adapter(keepClientScope: boolean): new (model: string) => ModelAdapter {
    const storage = this;
    return class implements ModelAdapter {
      readonly #model: string;
      constructor(model: string) {
        this.#model = model;
      }
      async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
        if (this.#model === "Client" && !keepClientScope) delete payload.scope;
        storage.set(`${this.#model}:${id}`, payload, expiresIn);
      }
      async find(id: string): Promise<Record<string, unknown> | undefined> {
        return storage.get(`${this.#model}:${id}`);
      }
      async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
        return storage.find(this.#model, (payload) => payload.uid === uid);
      }
      async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
        return storage.find(this.#model, (payload) => payload.userCode === userCode);
      }
      async consume(id: string): Promise<void> {
        const payload = storage.get(`${this.#model}:${id}`);
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      }
      async destroy(id: string): Promise<void> {
        storage.delete(`${this.#model}:${id}`);
      }
      async revokeByGrantId(grantId: string): Promise<void> {
        storage.revokeGrant(grantId);
      }
    };
  }
}

/** What oidc-provider asks of a storage adapter, per model. */
export interface ModelAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}
