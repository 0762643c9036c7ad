import { randomBytes } from "node:crypto";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import type { CredentialStore } from "./credentials.js";

/** A token this close to its expiry is not sent: the sign-in refreshes it first. */
const EXPIRY_MARGIN_MS = 30_000;

export interface ProviderOptions {
  /** Where the server's credentials are kept. */
  store: CredentialStore;
  /** The MCP server's URL, the key of its credentials. */
  server: URL;
  /** A client registered beforehand (`--client-id`): used as it is, no registration. */
  clientId?: string;
  /** An https URL of this client's metadata document (`--client-metadata-url`), used where the server takes one. */
  clientMetadataUrl?: string;
  /** The redirect URI once the loopback receiver listens; undefined until then. */
  redirectUrl(): string | undefined;
  /** The state of the authorization request about to be made. */
  onState(state: string): void;
  /** The authorization URL to send the person to. */
  onRedirect(url: URL): void;
  now?: () => number;
}

/**
 * The official client's `OAuthClientProvider` for `toolsmith`: a public client (PKCE, no secret) whose registration
 * and tokens live in the user's credential file; the PKCE verifier and discovery stay in memory for one run.
 */
export class CliOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  /** Scopes the server has asked for in this run (its challenges' `scope`). */
  readonly #wanted = new Set<string>();
  readonly #options: ProviderOptions;
  readonly #now: () => number;

  constructor(options: ProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string | undefined {
    return this.#options.redirectUrl();
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.#options.redirectUrl();
    return {
      client_name: "toolsmith",
      redirect_uris: redirect ? [redirect] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    const state = randomBytes(32).toString("base64url");
    this.#options.onState(state);
    return state;
  }

  /** The server asked for `scope` (a challenge's, space-separated): a registration limited to fewer is made again. */
  wants(scope: string | undefined): void {
    for (const one of scope?.split(" ") ?? []) if (one !== "") this.#wanted.add(one);
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    if (this.#options.clientId !== undefined) return { client_id: this.#options.clientId };
    const client = this.#options.store.read(this.#options.server).client;
    if (!client) return undefined;
    const { redirect_uris: registered, scope } = client as { redirect_uris?: unknown; scope?: unknown };
    // A registration made for another callback port is no use to this run's redirect: register again.
    const redirect = this.#options.redirectUrl();
    if (redirect && Array.isArray(registered) && !registered.includes(redirect)) return undefined;
    // One registered for some scopes may not ask for others (a step-up): register again, for all of them.
    if (typeof scope === "string") {
      const allowed = new Set(scope.split(" "));
      if ([...this.#wanted].some((one) => !allowed.has(one))) return undefined;
    }
    return client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    if (this.#options.clientId !== undefined) return;
    this.#options.store.update(this.#options.server, (kept) => ({ ...kept, client }));
  }

  /** The kept tokens; for the bearer header (no `ctx`), none once the access token has expired. */
  tokens(ctx?: { issuer: string }): StoredOAuthTokens | undefined {
    const kept = this.#options.store.read(this.#options.server);
    if (ctx === undefined && kept.expiresAt !== undefined && kept.expiresAt - EXPIRY_MARGIN_MS <= this.#now()) {
      return undefined;
    }
    return kept.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    const expiresAt = typeof tokens.expires_in === "number" ? this.#now() + tokens.expires_in * 1000 : undefined;
    this.#options.store.update(this.#options.server, (kept) => {
      const next = { ...kept, tokens };
      if (expiresAt === undefined) delete next.expiresAt;
      else next.expiresAt = expiresAt;
      return next;
    });
  }

  redirectToAuthorization(url: URL): void {
    this.#options.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no sign-in is under way");
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier" || scope === "all") this.#verifier = undefined;
    if (scope === "discovery" || scope === "all") this.#discovery = undefined;
    if (scope === "verifier" || scope === "discovery") return;
    this.#options.store.update(this.#options.server, (kept) => {
      const next = { ...kept };
      if (scope === "client" || scope === "all") delete next.client;
      if (scope === "tokens" || scope === "all") {
        delete next.tokens;
        delete next.expiresAt;
      }
      return next;
    });
  }
}
