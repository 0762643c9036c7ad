import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { createServer, type LogEntry, type Server } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { type Idp, startIdp } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { oidcUpstream } from "../upstream/oidc-upstream.js";
import type { Upstream } from "../upstream/upstream.js";
import { type OAuthProxy, type OAuthProxyOptions, oauthProxy } from "./oauth-proxy.js";
import { randomId, s256 } from "./pkce.js";

// A Toolsmith server behind the OAuth proxy, with a real OpenID provider (oidc-provider) as its upstream, and the
// client side of the flow written out request by request.

export const SECRET = "a test secret of at least thirty-two bytes, for sealing";
export const UPSTREAM_CLIENT = { id: "toolsmith-proxy", secret: "the proxy's secret at the provider" };

/** The OpenID provider the proxy signs people in with. */
export function upstreamIdp(): Promise<Idp> {
  return startIdp({ scopes: ["openid", "profile", "email"] });
}

/** The proxy's registration at `idp`, for the callbacks of the origins given. */
export function registerProxy(idp: Idp, origins: readonly string[]): Promise<void> {
  return idp.addClient({
    client_id: UPSTREAM_CLIENT.id,
    client_secret: UPSTREAM_CLIENT.secret,
    redirect_uris: origins.map((origin) => `${origin}/oauth/callback`),
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_basic",
  });
}

export function idpUpstream(idp: Idp): Upstream {
  return oidcUpstream({ issuer: idp.issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret });
}

export interface Proxied {
  readonly server: Server;
  readonly auth: OAuthProxy;
  readonly http: HttpServer;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  readonly logged: LogEntry[];
}

/** A server whose `whoami` tool answers its caller and whether the upstream's token reached it, behind the proxy. */
export async function startProxied(
  options: Partial<OAuthProxyOptions> & { upstream: Upstream; engine?: Engine; allowedHosts?: readonly string[] },
): Promise<Proxied> {
  const logged: LogEntry[] = [];
  const { engine, allowedHosts, ...rest } = options;
  const server = createServer({
    name: "proxied",
    version: "1",
    logger: (entry) => logged.push(entry),
    ...(engine === undefined ? {} : { engine }),
  });
  const auth = oauthProxy(server, { secret: SECRET, ...rest });
  server.tool({
    name: "whoami",
    description: "The caller, and the length of the upstream's token for them",
    handler: async (_args, ctx) => {
      const upstream = await auth.upstreamToken(ctx);
      return JSON.stringify({ subject: ctx.auth?.subject, scopes: ctx.auth?.scopes, upstream: upstream.length });
    },
  });
  const http = await listen(server, { port: 0, log: null, ...auth, ...(allowedHosts ? { allowedHosts } : {}) });
  const url = new URL(http.url);
  return { server, auth, http, origin: url.origin, port: Number(url.port), logged };
}

/** The redirect URI the tests' clients register: nothing listens there, the tests read the redirect itself. */
export const REDIRECT = "http://127.0.0.1:9/callback";

/** A provider, a proxy in front of it (`options` besides the upstream) that the provider knows, and a client of the proxy registered with REDIRECT. */
export async function startSignIn(
  options: Omit<Parameters<typeof startProxied>[0], "upstream">,
): Promise<{ idp: Idp; proxied: Proxied; clientId: string }> {
  const idp = await upstreamIdp();
  const proxied = await startProxied({ upstream: idpUpstream(idp), ...options });
  await registerProxy(idp, [proxied.origin]);
  const clientId = await registerClient(proxied.origin, REDIRECT);
  return { idp, proxied, clientId };
}

/** A client's side of one authorization: its PKCE pair and state. */
export async function pkce() {
  const verifier = randomId();
  return { verifier, challenge: await s256(verifier), state: randomId() };
}

/** Registers a public client (RFC 7591) redirecting to `redirectUri`: its client_id. */
export async function registerClient(origin: string, redirectUri: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test <Client>",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...extra,
    }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The /authorize URL for a client. */
/** An authorization request by `clientId` for `REDIRECT` with the PKCE pair `client` (S256), and any more parameters. */
export function authorizeFor(
  origin: string,
  clientId: string,
  client: { readonly challenge: string; readonly state: string },
  more: Record<string, string | undefined> = {},
): string {
  return authorizeUrl(origin, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: client.challenge,
    code_challenge_method: "S256",
    state: client.state,
    ...more,
  });
}

export function authorizeUrl(origin: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${origin}/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** A form POST to the token (or revocation) endpoint: status, body, headers. */
export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, string>,
  };
}

/** The `authorization_code` grant at `origin`'s token endpoint, for `REDIRECT`, with any more form fields. */
export function exchangeCode(
  origin: string,
  clientId: string,
  code: string,
  verifier: string,
  more: Record<string, string> = {},
) {
  return postForm(`${origin}/token`, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    ...more,
  });
}

/** One request by node:http to `port` with the Host given (a load balancer in front of several processes). */
export async function send(
  port: number,
  host: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const req = httpRequest({ host: "127.0.0.1", port, method, path, headers: { host, ...headers } });
  req.end(body);
  const [res] = (await once(req, "response")) as [IncomingMessage];
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return { status: res.statusCode ?? 0, headers: res.headers, body: text };
}

/** The cookie a response set, as a request sends it back. */
export function cookieOf(setCookie: string | string[] | null | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return (first ?? "").split(";")[0] ?? "";
}

/** The consent form's hidden fields in a consent page. */
export function consentForm(html: string): { consent: string; csrf: string } {
  const field = (name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? "";
  return { consent: field("consent"), csrf: field("csrf") };
}
