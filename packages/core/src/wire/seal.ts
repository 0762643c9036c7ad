// Tamper-evident tokens (2026-07-28 requestState, list cursors): base64url(JSON) "." base64url(HMAC-SHA256), the MAC
// taken over a purpose label and the body, so a token minted for one purpose is refused for another.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// AES-GCM's IV and tag: what `Sealer.encrypt` adds to a text's bytes.
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The bytes `Sealer.encrypt` adds to a text's UTF-8 bytes, before base64url: its IV and tag. */
export const ENCRYPTED_OVERHEAD_BYTES = IV_BYTES + TAG_BYTES;

// base64url's alphabet, as character codes.
const BASE64URL = Uint8Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", (c) =>
  c.charCodeAt(0),
);

/** `bytes` as base64url, unpadded. */
export function toBase64Url(bytes: Uint8Array): string {
  // By table, not btoa over String.fromCharCode(...bytes): ten times less work for a kept value of 12 KB.
  const out = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  let o = 0;
  let at = 0;
  for (; at + 2 < bytes.length; at += 3) {
    const n = ((bytes[at] as number) << 16) | ((bytes[at + 1] as number) << 8) | (bytes[at + 2] as number);
    out[o++] = BASE64URL[n >> 18] as number;
    out[o++] = BASE64URL[(n >> 12) & 63] as number;
    out[o++] = BASE64URL[(n >> 6) & 63] as number;
    out[o++] = BASE64URL[n & 63] as number;
  }
  if (at < bytes.length) {
    const two = at + 1 < bytes.length;
    const n = ((bytes[at] as number) << 16) | (two ? (bytes[at + 1] as number) << 8 : 0);
    out[o++] = BASE64URL[n >> 18] as number;
    out[o++] = BASE64URL[(n >> 12) & 63] as number;
    if (two) out[o++] = BASE64URL[(n >> 6) & 63] as number;
  }
  return decoder.decode(out);
}

/** The bytes of a base64url text; undefined when it is not one. */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

/**
 * Seals and opens tokens with one HMAC key, and encrypts values with keys derived from it (HKDF, one a label): from
 * the server's options, or a random one that no other process shares.
 */
export class Sealer {
  // Kept until first use: making the key loads Node's webcrypto, which most servers never need (~2 ms of start-up).
  #raw: Uint8Array<ArrayBuffer> | undefined;
  #made: Promise<CryptoKey> | undefined;
  #base: Promise<CryptoKey> | undefined;
  readonly #derived = new Map<string, Promise<CryptoKey>>();

  /** Checks the secret's length at once (a short key throws here, at `createServer`); makes the key on first use. */
  constructor(secret: string | Uint8Array | undefined) {
    if (secret === undefined) return;
    // A copy: the caller's bytes may change after createServer, as importKey's own copy never did.
    const raw = typeof secret === "string" ? encoder.encode(secret) : new Uint8Array(secret);
    if (raw.length < 16) throw new RangeError("the state key must be at least 16 bytes long");
    this.#raw = raw;
  }

  // The secret's bytes (random the first time when none was given), until both keys made of them are made.
  #material(): Uint8Array<ArrayBuffer> {
    this.#raw ??= crypto.getRandomValues(new Uint8Array(32));
    return this.#raw;
  }

  // The seal's HMAC key is the secret itself (as ever: tokens stay valid across versions); the rest are derived.
  get #key(): Promise<CryptoKey> {
    if (this.#made === undefined) {
      const raw = this.#material();
      this.#made = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
      if (this.#base !== undefined) this.#raw = undefined;
    }
    return this.#made;
  }

  get #baseKey(): Promise<CryptoKey> {
    if (this.#base === undefined) {
      const raw = this.#material();
      this.#base = crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
      if (this.#made !== undefined) this.#raw = undefined;
    }
    return this.#base;
  }

  // A key of its own for `label`: HKDF-SHA-256 of the secret, so no two labels (nor the seal) share a key.
  #derive(label: string, algorithm: AesKeyGenParams | HmacImportParams, usages: KeyUsage[]): Promise<CryptoKey> {
    let key = this.#derived.get(label);
    if (key === undefined) {
      const params = { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(label) };
      key = this.#baseKey.then((base) => crypto.subtle.deriveKey(params, base, algorithm, false, usages));
      this.#derived.set(label, key);
    }
    return key;
  }

  /**
   * `text` encrypted for `purpose` (AES-256-GCM, a random IV), bound to `context` (it opens only with the same):
   * base64url of the IV, the ciphertext and its tag.
   */
  async encrypt(purpose: string, text: string, context = ""): Promise<string> {
    const key = await this.#derive(`${purpose}.aes-256-gcm`, { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(`${purpose}.${context}`) },
      key,
      encoder.encode(text),
    );
    const out = new Uint8Array(IV_BYTES + sealed.byteLength);
    out.set(iv);
    out.set(new Uint8Array(sealed), IV_BYTES);
    return toBase64Url(out);
  }

  /**
   * The text `encrypt(purpose, …, context)` gave `token` for, with this key; undefined for anything else (tampered,
   * another key or context).
   */
  async decrypt(purpose: string, token: unknown, context = ""): Promise<string | undefined> {
    const bytes = typeof token === "string" ? fromBase64Url(token) : undefined;
    if (bytes === undefined || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    const key = await this.#derive(`${purpose}.aes-256-gcm`, { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
    try {
      const opened = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: bytes.subarray(0, IV_BYTES) as Uint8Array<ArrayBuffer>,
          additionalData: encoder.encode(`${purpose}.${context}`),
        },
        key,
        bytes.subarray(IV_BYTES) as Uint8Array<ArrayBuffer>,
      );
      return decoder.decode(opened);
    } catch {
      return undefined;
    }
  }

  /** HMAC-SHA-256 of `text` under a key derived for `purpose`, base64url: names a value without revealing it. */
  async mac(purpose: string, text: string): Promise<string> {
    const key = await this.#derive(`${purpose}.hmac-sha-256`, { name: "HMAC", hash: "SHA-256" }, ["sign"]);
    return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
  }

  async seal(purpose: string, payload: unknown): Promise<string> {
    const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
    const mac = await crypto.subtle.sign("HMAC", await this.#key, encoder.encode(`${purpose}.${body}`));
    return `${body}.${toBase64Url(new Uint8Array(mac))}`;
  }

  /** The payload of a token this key sealed for `purpose`; undefined for anything else. */
  async open(purpose: string, token: unknown): Promise<unknown> {
    if (typeof token !== "string" || token.length > 1_000_000) return undefined;
    const dot = token.indexOf(".");
    if (dot < 0) return undefined;
    const body = token.slice(0, dot);
    const mac = fromBase64Url(token.slice(dot + 1));
    if (mac?.length !== 32) return undefined;
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac as Uint8Array<ArrayBuffer>,
      encoder.encode(`${purpose}.${body}`),
    );
    if (!valid) return undefined;
    const bytes = fromBase64Url(body);
    if (!bytes) return undefined;
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch {
      return undefined;
    }
  }
}

/** JSON with object keys sorted, so equal values give equal text; undefined when it nests past `levels`. */
export function canonicalJson(value: unknown, levels: number): string | undefined {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  // Bounded: a client's value may nest deeper than the stack goes.
  if (levels === 0) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = canonicalJson(item, levels - 1);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(",")}]`;
  }
  for (const key of Object.keys(value).sort()) {
    const text = canonicalJson((value as Record<string, unknown>)[key], levels - 1);
    if (text === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

/** SHA-256 of a text, base64url. */
export async function digest(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}
