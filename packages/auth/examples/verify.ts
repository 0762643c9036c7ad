// The @example blocks of @toolsmith/auth's verifiers: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { anyVerifier, introspectionVerifier, jwtVerifier, staticTokens } from "@toolsmith/auth";
import type { Servable } from "@toolsmith/core/transport";
import { listen } from "@toolsmith/transport-http";

export async function jwt(server: Servable): Promise<void> {
  //#region jwtVerifier
  const authenticate = jwtVerifier({
    issuer: "https://idp.example.com",
    audience: "https://mcp.example.com/mcp",
    requiredScopes: ["mcp:use"],
  });
  await listen(server, { port: 3000, allowedHosts: ["mcp.example.com"], authenticate });
  //#endregion jwtVerifier
}

export function opaque() {
  //#region introspectionVerifier
  const authenticate = introspectionVerifier({
    endpoint: "https://idp.example.com/oauth2/introspect",
    client: { id: "mcp-server", secret: process.env.INTROSPECTION_SECRET ?? "" },
    audience: "https://mcp.example.com/mcp",
  });
  //#endregion introspectionVerifier
  return authenticate;
}

export function either(jwts: ReturnType<typeof jwtVerifier>, opaques: ReturnType<typeof introspectionVerifier>) {
  //#region anyVerifier
  const authenticate = anyVerifier(jwts, opaques);
  //#endregion anyVerifier
  return authenticate;
}

export async function development(server: Servable): Promise<void> {
  //#region staticTokens
  await listen(server, {
    port: 3000,
    authenticate: staticTokens({ tokens: { "dev-token": { subject: "me", scopes: ["mcp:use"] } } }),
  });
  //#endregion staticTokens
}
