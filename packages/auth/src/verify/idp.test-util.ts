import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";

// A key-serving identity provider of our own on 127.0.0.1 (node:http): its metadata, its key set, an
// introspection endpoint answering from a table; it counts what it is asked and can be made to fail.

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

/** A fresh key pair named `kid`, its public half as a JWK. */
export async function signingKey(kid: string, alg = "ES256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

export const RESOURCE = "http://127.0.0.1/mcp";

/** A signed access token: `claims` over defaults (issuer, audience, subject, an hour to live), `header` over kid/alg. */
export async function token(
  key: SigningKey,
  issuer: string,
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: RESOURCE, sub: "alice", iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt", ...header })
    .sign(key.privateKey);
}

/** How the provider answers: normally, by dropping the connection, with garbage, or never. */
export type IdpMode = "up" | "drop" | "garbage" | "hang";

export interface TestIdp {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly introspectionUri: string;
  /** Requests by path. */
  readonly asked: Map<string, number>;
  /** The request bodies introspection received. */
  readonly introspected: string[];
  keys: SigningKey[];
  mode: IdpMode;
  /** Introspection answers by token (a token not listed is inactive). */
  readonly answers: Map<string, Record<string, unknown>>;
  count(path: string): number;
  close(): Promise<void>;
}

function json(response: ServerResponse, body: unknown, status = 200): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Starts the provider; `issuerPath` ("/tenant") gives the issuer a path. */
export async function startIdp(
  options: { issuerPath?: string; metadataAt?: "openid" | "oauth" } = {},
): Promise<TestIdp> {
  const held: ServerResponse[] = [];
  const idp = {
    asked: new Map<string, number>(),
    introspected: [] as string[],
    keys: [] as SigningKey[],
    mode: "up" as IdpMode,
    answers: new Map<string, Record<string, unknown>>(),
  } as TestIdp & { issuer: string; jwksUri: string; introspectionUri: string };
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    idp.asked.set(path, (idp.asked.get(path) ?? 0) + 1);
    let body = "";
    for await (const chunk of request) body += chunk;
    if (idp.mode === "drop") return void response.socket?.destroy();
    if (idp.mode === "hang") return void held.push(response);
    if (idp.mode === "garbage")
      return void response.writeHead(200, { "content-type": "application/json" }).end("<html>");
    const tenant = options.issuerPath ?? "";
    const openid = options.metadataAt !== "oauth";
    const metadataPath = openid
      ? `${tenant}/.well-known/openid-configuration`
      : `/.well-known/oauth-authorization-server${tenant}`;
    if (path === metadataPath) {
      return json(response, {
        issuer: idp.issuer,
        jwks_uri: idp.jwksUri,
        introspection_endpoint: idp.introspectionUri,
        token_endpoint: `${idp.issuer}/token`,
      });
    }
    if (path === "/jwks") return json(response, { keys: idp.keys.map((key) => key.jwk) } satisfies JSONWebKeySet);
    if (path === "/introspect" && request.method === "POST") {
      idp.introspected.push(body);
      if (request.headers.authorization !== `Basic ${Buffer.from("rs:s%3Acret").toString("base64")}`) {
        return json(response, { error: "invalid_client" }, 401);
      }
      const tokenValue = new URLSearchParams(body).get("token") ?? "";
      return json(response, idp.answers.get(tokenValue) ?? { active: false });
    }
    json(response, { error: "not found" }, 404);
  };
  const server = createServer((request, response) => {
    serve(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.issuer = `${origin}${options.issuerPath ?? ""}`;
  idp.jwksUri = `${origin}/jwks`;
  idp.introspectionUri = `${origin}/introspect`;
  idp.count = (path) => idp.asked.get(path) ?? 0;
  idp.close = async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return idp;
}

/** A request to the resource, with `authorization` when given. */
export function request(authorization?: string, host = "127.0.0.1"): Request {
  const headers: Record<string, string> = { host };
  if (authorization !== undefined) headers.authorization = authorization;
  return new Request(`http://${host}/mcp`, { method: "POST", headers });
}
