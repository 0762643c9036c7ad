// Tamper-evident tokens (2026-07-28 requestState, list cursors): base64url(JSON) "." base64url(HMAC-SHA256), the MAC
// taken over a purpose label and the body, so a token minted for one purpose is refused for another.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `bytes` as base64url, unpadded. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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

/** Seals and opens tokens with one HMAC key: from the server's options, or random per process. */
export class Sealer {
  // Kept until first use: making the key loads Node's webcrypto, which most servers never need (~2 ms of start-up).
  #raw: Uint8Array<ArrayBuffer> | undefined;
  #made: Promise<CryptoKey> | undefined;

  /** Checks the secret's length at once (a short key throws here, at `createServer`); makes the key on first use. */
  constructor(secret: string | Uint8Array | undefined) {
    if (secret === undefined) return;
    // A copy: the caller's bytes may change after createServer, as importKey's own copy never did.
    const raw = typeof secret === "string" ? encoder.encode(secret) : new Uint8Array(secret);
    if (raw.length < 16) throw new RangeError("the state key must be at least 16 bytes long");
    this.#raw = raw;
  }

  get #key(): Promise<CryptoKey> {
    if (this.#made === undefined) {
      const raw = this.#raw ?? crypto.getRandomValues(new Uint8Array(32));
      this.#raw = undefined;
      this.#made = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    }
    return this.#made;
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
