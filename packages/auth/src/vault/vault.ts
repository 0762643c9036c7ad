import type { KeyValueStore } from "@toolsmith/core/engine";
import { CompactEncrypt, compactDecrypt } from "jose";

// Sealed records on the server's engine: what a sign-in flow keeps between its steps. A record's key is an HMAC of
// its id (a code, a refresh token: never stored in clear, never found without the secret), and its value is
// encrypted and authenticated (JWE, dir + A256GCM) and names the key it was stored under, so a shared engine (Redis)
// holds nothing a reader of it could use, and a value moved under another key is refused.

/** Records kept sealed on a `KeyValueStore`, each of one kind (`"code"`, `"client"`, `"refresh"`) and id. */
export interface Vault {
  /** Keep `value` (JSON) for `ttlMs`; with `ifAbsent`, only when none is there: whether it was stored. */
  put(
    kind: string,
    id: string,
    value: unknown,
    ttlMs: number,
    options?: { readonly ifAbsent?: boolean },
  ): Promise<boolean>;
  /** The live record, or undefined (none, expired, or not sealed with this secret). */
  get<T>(kind: string, id: string): Promise<T | undefined>;
  /** The live record, deleted as it is read: of callers taking one id at once, exactly one gets it (single use). */
  take<T>(kind: string, id: string): Promise<T | undefined>;
  /** Delete the record: whether there was a live one. */
  delete(kind: string, id: string): Promise<boolean>;
  /** Count one more under (kind, id) in a fixed window of `windowMs`: the count so far (1 for the first). */
  count(kind: string, id: string, windowMs: number): Promise<number>;
}

/** Bytes a secret must hold at least (256 bits). */
export const MIN_SECRET_BYTES = 32;

const encoder = new TextEncoder();

/** The secret's bytes: a string is taken as UTF-8. A RangeError when it is shorter than 32 bytes. */
export function secretBytes(secret: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = typeof secret === "string" ? encoder.encode(secret) : new Uint8Array(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new RangeError(
      `the secret must hold at least ${MIN_SECRET_BYTES} bytes (got ${bytes.byteLength}); make one with \`openssl rand -base64 48\``,
    );
  }
  return bytes;
}

// Two keys from the one secret (HKDF-SHA256), one per purpose: naming records and sealing them.
async function derive(secret: Uint8Array<ArrayBuffer>, purpose: string): Promise<Uint8Array<ArrayBuffer>> {
  const base = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`toolsmith-auth ${purpose}`) },
    base,
    256,
  );
  return new Uint8Array(bits);
}

function base64url(bytes: ArrayBuffer): string {
  return Buffer.from(bytes).toString("base64url");
}

/**
 * A vault on `store` (the server's engine), sealed with `secret` (at least 32 bytes; every process of a server
 * shares it). Keys are `auth:<kind>:<HMAC of id>`.
 */
export function createVault(store: KeyValueStore, secret: string | Uint8Array): Vault {
  const bytes = secretBytes(secret);
  const keys = (async () => {
    const naming = await crypto.subtle.importKey(
      "raw",
      await derive(bytes, "names"),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return { naming, sealing: await derive(bytes, "values") };
  })();
  const nameOf = async (kind: string, id: string) => {
    const { naming } = await keys;
    return `auth:${kind}:${base64url(await crypto.subtle.sign("HMAC", naming, encoder.encode(`${kind}\u0000${id}`)))}`;
  };
  const seal = async (name: string, value: unknown) => {
    const { sealing } = await keys;
    return new CompactEncrypt(encoder.encode(JSON.stringify({ k: name, v: value })))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .encrypt(sealing);
  };
  const open = async <T>(name: string, sealed: string | undefined): Promise<T | undefined> => {
    if (sealed === undefined) return undefined;
    const { sealing } = await keys;
    try {
      const { plaintext } = await compactDecrypt(sealed, sealing);
      const record = JSON.parse(new TextDecoder().decode(plaintext)) as { k?: unknown; v?: T };
      return record.k === name ? record.v : undefined;
    } catch {
      // Sealed with another secret, or tampered with: as if it were not there.
      return undefined;
    }
  };
  return {
    async put(kind, id, value, ttlMs, options) {
      const name = await nameOf(kind, id);
      return store.setValue(name, await seal(name, value), { ttlMs, ifAbsent: options?.ifAbsent === true });
    },
    async get(kind, id) {
      const name = await nameOf(kind, id);
      return open(name, await store.getValue(name));
    },
    async take(kind, id) {
      const name = await nameOf(kind, id);
      return open(name, await store.takeValue(name));
    },
    async delete(kind, id) {
      return store.deleteValue(await nameOf(kind, id));
    },
    async count(kind, id, windowMs) {
      return store.countUp(await nameOf(`count:${kind}`, id), windowMs);
    },
  };
}
