import type { ClientRegistry } from "../clients/client.js";
import type { Upstream } from "../upstream/upstream.js";
import type { Vault } from "../vault/vault.js";
import type { SigningKey } from "./signing-key.js";

// What every endpoint of the proxy shares: the vault, the upstream, the clients, the key, and the options resolved.

export interface ProxySettings {
  readonly vault: Vault;
  readonly upstream: Upstream;
  readonly clients: ClientRegistry;
  readonly key: () => Promise<SigningKey>;
  /** The MCP endpoint's path: the resource tokens are bound to is `<origin><path>`. */
  readonly path: string;
  readonly issuer: string | undefined;
  readonly development: boolean;
  readonly accessTokenTtlSec: number;
  readonly refreshTokenTtlSec: number;
  /** Scopes a client may ask for; undefined: any (each is shown on the consent page). */
  readonly scopes: readonly string[] | undefined;
  readonly consentTitle: string;
  /** Tell the server's log (never a token). */
  readonly warn: (message: string, error?: unknown) => void;
}

/** The issuer for a request: the option, else the origin the request was addressed to. */
export function issuerOf(settings: ProxySettings, request: Request): string {
  return settings.issuer ?? new URL(request.url).origin;
}

/** The MCP resource URL (RFC 8707) tokens for this request's server are bound to, as its RFC 9728 metadata says. */
export function resourceOf(settings: ProxySettings, request: Request): string {
  return `${new URL(request.url).origin}${settings.path}`;
}

/** Time a pending sign-in may take, from the consent page to the upstream's callback. */
export const PENDING_TTL_MS = 10 * 60_000;
/** An authorization code lives this long (RFC 6749 section 4.1.2 advises at most 10 minutes; we allow one). */
export const CODE_TTL_MS = 60_000;
