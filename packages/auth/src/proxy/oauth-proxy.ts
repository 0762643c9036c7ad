import { type AuthInfo, DefinitionError, type Server } from "@toolsmith/core";
import { callerKey } from "@toolsmith/core/transport";
import { type AuthOptions, AuthUnavailable, type RouteInfo, type Routes } from "@toolsmith/transport-http";
import type { JWK } from "jose";
import { createClientRegistry } from "../clients/registry.js";
import type { Upstream } from "../upstream/upstream.js";
import { createVault } from "../vault/vault.js";
import { jwtVerifier, type Verifier } from "../verify/jwt-verifier.js";
import { callback } from "./callback.js";
import { answerConsent, showConsent } from "./consent.js";
import { authorizationServerMetadata } from "./metadata.js";
import { errorPage, json, oauthError } from "./replies.js";
import { revoke } from "./revoke.js";
import { issuerOf, type ProxySettings, resourceOf } from "./settings.js";
import { signingKey } from "./signing-key.js";
import { token } from "./token.js";
import { upstreamTokens } from "./upstream-token.js";

/** The OAuth proxy's options. */
export interface OAuthProxyOptions {
  /** The identity provider people sign in with: `oidcUpstream`, `oauthUpstream`, `githubUpstream`, `googleUpstream`. */
  readonly upstream: Upstream;
  /**
   * Seals every record the proxy keeps on the engine (at least 32 bytes; the same for every process of the server).
   * Only `development` on the memory engine may leave it out (a random one per process).
   */
  readonly secret?: string | Uint8Array;
  /**
   * This authorization server's issuer: the server's public origin (`https://mcp.example.com`). Default: the origin
   * each request was addressed to. Set it in production, so a forged `Host` cannot change what tokens name.
   */
  readonly issuer?: string;
  /** Allow http and any host for redirect URIs and client metadata documents, and no `secret` on the memory engine. */
  readonly development?: boolean;
  /** The MCP endpoint's path, as given to `listen` (default `/mcp`): tokens are bound to `<origin><path>`. */
  readonly path?: string;
  /** Lifetime of an access token (default 3600 s). */
  readonly accessTokenTtlSec?: number;
  /** Lifetime of a refresh token, and of a grant unused that long (default 30 days). */
  readonly refreshTokenTtlSec?: number;
  /** Scopes clients may ask for (`scopes_supported`); default: any, each shown on the consent page. */
  readonly scopes?: readonly string[];
  readonly consent?: { readonly title?: string };
  readonly clients?: {
    /** Accept a client_id that is the https URL of its metadata document (default true). */
    readonly metadataDocuments?: boolean;
    /** RFC 7591 registration at `/register`, for older clients (default true). */
    readonly dynamicRegistration?: boolean;
    /** Registrations one caller may make per hour (default the registry's). */
    readonly registrationsPerHour?: number;
    /** Registrations every caller together may make per hour (default the registry's). */
    readonly registrationsPerHourTotal?: number;
    /** Metadata documents the server may fetch anew per hour (default the registry's). */
    readonly documentFetchesPerHour?: number;
  };
  /** The key access tokens are signed with (a private P-256 JWK); default one made once and kept in the vault. */
  readonly signingKey?: JWK;
}

/** What `oauthProxy` gives: spread it into `listen`/`createHttpHandler`'s options; `upstreamToken` for handlers. */
export interface OAuthProxy {
  readonly authenticate: NonNullable<AuthOptions["authenticate"]>;
  readonly resourceMetadata: NonNullable<AuthOptions["resourceMetadata"]>;
  readonly routes: Routes;
  /** The upstream's access token for the caller of `ctx` (refreshed when expired); never give it to the client. */
  upstreamToken(ctx: { readonly auth?: AuthInfo | undefined }): Promise<string>;
}

function secretOf(server: Server, options: OAuthProxyOptions): string | Uint8Array {
  if (options.secret !== undefined) return options.secret;
  if (options.development === true && server.engine.shared === false) {
    server.log({
      level: "warning",
      message:
        "oauthProxy: no secret given (development): a random one per process, so sign-ins end when it restarts. Give `secret` (openssl rand -base64 48) before going live",
    });
    return crypto.getRandomValues(new Uint8Array(32));
  }
  throw new DefinitionError(
    "oauthProxy needs a `secret` of at least 32 bytes, the same for every process of the server (openssl rand -base64 48); only `development: true` on the memory engine may leave it out",
  );
}

function seconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new DefinitionError(`${name} must be a whole number of seconds above 0`);
  return value;
}

/**
 * Make the server its own OAuth authorization server in front of one upstream identity provider: MCP clients
 * register (metadata documents or RFC 7591), sign in at the upstream through our consent page, and get tokens for
 * this server alone; the upstream's tokens stay sealed on the server's engine.
 */
export function oauthProxy(server: Server, options: OAuthProxyOptions): OAuthProxy {
  const vault = createVault(server.engine, secretOf(server, options));
  if (
    options.issuer !== undefined &&
    (!URL.canParse(options.issuer) || new URL(options.issuer).origin !== options.issuer)
  ) {
    throw new DefinitionError(`issuer must be an origin, such as https://mcp.example.com (got ${options.issuer})`);
  }
  const development = options.development === true;
  const settings: ProxySettings = {
    vault,
    upstream: options.upstream,
    // The registry's own options, as given (an option left undefined keeps the registry's default).
    clients: createClientRegistry({ vault, development, ...defined(options.clients ?? {}) }),
    key: signingKey(vault, options.signingKey),
    path: options.path ?? "/mcp",
    issuer: options.issuer,
    development,
    accessTokenTtlSec: seconds("accessTokenTtlSec", options.accessTokenTtlSec, 3600),
    refreshTokenTtlSec: seconds("refreshTokenTtlSec", options.refreshTokenTtlSec, 30 * 24 * 3600),
    scopes: options.scopes,
    consentTitle: options.consent?.title ?? "",
    warn: (message, error) => server.log({ level: "warning", message, ...(error === undefined ? {} : { error }) }),
  };
  // An engine down, or anything unforeseen: the answer the RFC has for it, and the log hears why.
  const guarded =
    (kind: "json" | "page", handler: (request: Request, info: RouteInfo) => Promise<Response>) =>
    async (request: Request, info: RouteInfo) => {
      try {
        return await handler(request, info);
      } catch (error) {
        settings.warn(`OAuth proxy: ${new URL(request.url).pathname} failed: ${String(error)}`, error);
        return kind === "json"
          ? oauthError(503, "temporarily_unavailable", "try again later", { "retry-after": "5" })
          : errorPage(503, "The sign-in service is unavailable. Try again in a moment.");
      }
    };
  const form = (maxBodyBytes: number, handler: (request: Request, info: RouteInfo) => Promise<Response>) => ({
    maxBodyBytes,
    handler: guarded("json", handler),
  });
  const routes: Record<string, Routes[string]> = {
    "GET /.well-known/oauth-authorization-server": guarded("json", async (request) =>
      json(authorizationServerMetadata(settings, issuerOf(settings, request))),
    ),
    "GET /.well-known/jwks.json": guarded("json", async () => json((await settings.key()).jwks)),
    "GET /authorize": guarded("page", (request) => showConsent(settings, request)),
    "POST /authorize": {
      maxBodyBytes: 8 * 1024,
      handler: guarded("page", (request) => answerConsent(settings, request)),
    },
    "GET /oauth/callback": guarded("page", (request) => callback(settings, request)),
    "POST /token": form(16 * 1024, (request) => token(settings, request)),
    "POST /revoke": form(16 * 1024, (request) => revoke(settings, request)),
  };
  if (settings.clients.dynamicRegistration) {
    routes["POST /register"] = form(64 * 1024, (request, info) =>
      // Counted as every per-caller limit is: an IPv6 address by its /56, so one host cannot count as many.
      settings.clients.register(request, callerKey(undefined, () => info.remoteAddress) ?? "address unknown"),
    );
  }
  // Our tokens checked by jwtVerifier with our own key set, one per origin served (the issuer, unless given, and
  // the resource a token must name follow the request's; Host is checked against allowedHosts before this runs).
  const verifiers = new Map<string, Promise<Verifier>>();
  const verifierFor = (request: Request) => {
    const origin = new URL(request.url).origin;
    let verifier = verifiers.get(origin);
    if (verifier === undefined) {
      if (verifiers.size >= 64) verifiers.clear();
      verifier = settings.key().then(
        ({ jwks }) =>
          jwtVerifier({ issuer: issuerOf(settings, request), audience: resourceOf(settings, request), jwks }),
        (error: unknown) => {
          throw new AuthUnavailable("the signing key could not be read from the server's engine", 5, { cause: error });
        },
      );
      verifiers.set(origin, verifier);
      verifier.catch(() => verifiers.delete(origin));
    }
    return verifier;
  };
  const authenticate = async (request: Request) => (await verifierFor(request))(request);
  return {
    authenticate,
    resourceMetadata: {
      authorizationServers: (origin: string) => [options.issuer ?? origin],
      ...(options.scopes === undefined ? {} : { scopesSupported: options.scopes }),
    },
    routes,
    upstreamToken: upstreamTokens(settings),
  };
}

/** `options` without the keys whose value is undefined (what exactOptionalPropertyTypes asks of an option passed on). */
function defined<T extends object>(options: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
