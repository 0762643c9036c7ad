import { randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type Provider from "oidc-provider";
import {
  type ClientMetadata,
  configuration,
  type Settings,
  type SigningAlgorithm,
  signingKey,
} from "./configuration.js";
import { MemoryStorage } from "./memory-adapter.js";
import { quietly } from "./quiet.js";

export type { ClientMetadata, SigningAlgorithm };

/** How to start the development OpenID provider. */
export interface IdpOptions {
  /** Pre-registered clients (a proxy's client id, secret and redirect URIs). More can be added with `addClient`. */
  clients?: ClientMetadata[];
  /** The scopes a resource server (an RFC 8707 resource indicator) offers; default `mcp:read mcp:write mcp:admin`. */
  scopes?: readonly string[];
  /** The resource indicators accepted (`invalid_target` for others); default any URL. */
  resources?: readonly string[];
  /** Access token lifetime, in seconds; default 3600. */
  accessTokenTtlSec?: number;
  /** Refresh token (and grant, session) lifetime, in seconds; default one day. */
  refreshTokenTtlSec?: number;
  /** The algorithm access tokens are signed with; default RS256. */
  accessTokenAlgorithm?: SigningAlgorithm;
  /**
   * Client ID metadata documents (an https URL as client_id, fetched by the provider): on by default. An object gives
   * the fetch the provider uses for them, so a test can answer an https URL from a loopback server.
   */
  clientIdMetadataDocuments?: boolean | { fetch: typeof fetch };
  /**
   * Hold a registered client to the `scope` it registered with (oidc-provider's rule); default false, as many
   * providers do not, so a client that registered for less can still step up.
   */
  holdClientsToRegisteredScope?: boolean;
  /** The port to listen on, on 127.0.0.1; default a free one. */
  port?: number;
}

/** A running development OpenID provider. */
export interface Idp {
  /** `http://127.0.0.1:<port>`: the issuer, also the base URL of every endpoint. */
  readonly issuer: string;
  readonly url: string;
  readonly port: number;
  readonly jwksUri: string;
  /** Errors the provider met while answering (none in a healthy run; a test can assert it stays empty). */
  readonly serverErrors: readonly Error[];
  /** Registers (or replaces) a client, as if pre-registered: for a client whose redirect URI is known only now. */
  addClient(metadata: ClientMetadata): Promise<void>;
  /** An access token for `resource` through the client credentials grant (the client must be allowed it). */
  clientCredentialsToken(request: {
    clientId: string;
    clientSecret: string;
    resource: string;
    scope?: string;
  }): Promise<string>;
  /** Starts signing with a new key (the old one stays published, so tokens already issued still verify). */
  rotateKeys(): Promise<void>;
  /** Stops answering: the port refuses connections (an IdP that is down). Its state is kept. */
  stop(): Promise<void>;
  /** Answers again on the same port, with the state it had. */
  start(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** Starts a real OpenID provider (oidc-provider) on 127.0.0.1 with its own login and consent pages. */
export async function startIdp(options: IdpOptions = {}): Promise<Idp> {
  const settings: Settings = {
    storage: new MemoryStorage(),
    keys: [await signingKey(options.accessTokenAlgorithm ?? "RS256")],
    clients: [...(options.clients ?? [])],
    scopes: options.scopes ?? ["mcp:read", "mcp:write", "mcp:admin"],
    resources: options.resources,
    accessTokenTtlSec: options.accessTokenTtlSec ?? 3600,
    refreshTokenTtlSec: options.refreshTokenTtlSec ?? 86_400,
    accessTokenAlgorithm: options.accessTokenAlgorithm ?? "RS256",
    clientIdMetadataDocuments: options.clientIdMetadataDocuments ?? true,
    cookieKeys: [randomBytes(32).toString("base64url")],
    keepClientScope: options.holdClientsToRegisteredScope ?? false,
  };
  // ID tokens default to RS256 for every client: the provider holds an RS256 key besides the access tokens' one.
  if (settings.accessTokenAlgorithm !== "RS256") settings.keys.push(await signingKey("RS256"));
  const serverErrors: Error[] = [];
  let handle: ReturnType<Provider["callback"]> | undefined;
  const server = createServer((req, res) => {
    if (handle === undefined) res.writeHead(503).end();
    else void handle(req, res);
  });

  let issuer = "";
  async function build(): Promise<void> {
    const next = await quietly(async () => {
      const { Provider } = await import("oidc-provider");
      return new Provider(issuer, configuration(settings) as never);
    });
    next.on("server_error", (_ctx, error) => serverErrors.push(error));
    // Koa prints an error nothing listens for: the provider already reports each as server_error.
    (next as unknown as EventEmitter).on("error", (error: Error) => serverErrors.push(error));
    handle = await quietly(() => next.callback());
  }

  async function listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  const port = await listen(options.port ?? 0);
  issuer = `http://127.0.0.1:${port}`;
  await build();
  let running = true;

  async function stop(): Promise<void> {
    if (!running) return;
    running = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  return {
    issuer,
    url: issuer,
    port,
    jwksUri: `${issuer}/jwks`,
    serverErrors,
    async addClient(metadata) {
      settings.clients = [...settings.clients.filter((client) => client.client_id !== metadata.client_id), metadata];
      await build();
    },
    async clientCredentialsToken({ clientId, clientSecret, resource, scope }) {
      const body = new URLSearchParams({ grant_type: "client_credentials", resource });
      if (scope !== undefined) body.set("scope", scope);
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
        body,
      });
      const answer = (await response.json()) as { access_token?: string; error?: string };
      if (answer.access_token === undefined) throw new Error(`the IdP refused a token: ${answer.error}`);
      return answer.access_token;
    },
    async rotateKeys() {
      settings.keys = [await signingKey(settings.accessTokenAlgorithm), ...settings.keys];
      await build();
    },
    stop,
    async start() {
      if (running) return;
      await listen(port);
      running = true;
    },
    close: stop,
  };
}
