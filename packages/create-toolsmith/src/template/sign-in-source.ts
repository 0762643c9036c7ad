import type { ProjectOptions } from "../options.js";

// `src/sign-in.ts` (--auth): what `listen` is given so that callers sign in, read from the environment.

const REQUIRED = `/** A setting the server cannot start without: said on stderr, with where to read about it. */
function required(name: string): string {
  const value = process.env[name];
  if (value) return value;
  process.stderr.write(\`Set \${name} to serve HTTP: see "Sign-in" in README.md.\\n\`);
  process.exit(1);
}
`;

const VERIFY = `import { jwtVerifier } from "@toolsmith/auth";

${REQUIRED}
/**
 * Every request carries a token your identity provider (ISSUER) issued for this server (AUDIENCE: its URL, such as
 * http://127.0.0.1:3000/mcp), checked against the provider's published keys; clients find the provider in this
 * server's protected-resource metadata.
 */
export function signIn() {
  const issuer = required("ISSUER");
  return {
    authenticate: jwtVerifier({ issuer, audience: required("AUDIENCE") }),
    resourceMetadata: { authorizationServers: [issuer] },
  };
}
`;

const PROXY = `import { oauthProxy, oidcUpstream } from "@toolsmith/auth";
import type { McpServer } from "@toolsmith/decorators";

${REQUIRED}
/**
 * This server is the OAuth authorization server its clients sign in with, in front of one OpenID provider
 * (OIDC_ISSUER) where it is registered (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET; its redirect URI is this server's
 * /oauth/callback). AUTH_SECRET (32 bytes or more, the same for every process) seals what it keeps on the engine.
 */
export function signIn(server: McpServer) {
  const upstream = oidcUpstream({
    issuer: required("OIDC_ISSUER"),
    clientId: required("OIDC_CLIENT_ID"),
    clientSecret: required("OIDC_CLIENT_SECRET"),
  });
  // PUBLIC_URL: the origin clients reach this server at (https://mcp.example.com); default each request's own.
  const { PUBLIC_URL } = process.env;
  return oauthProxy(server.toServer(), {
    upstream,
    secret: required("AUTH_SECRET"),
    ...(PUBLIC_URL ? { issuer: PUBLIC_URL } : {}),
  });
}
`;

/** `src/sign-in.ts` for `--auth verify` or `--auth proxy`. */
export function signInSource({ auth }: ProjectOptions): string {
  return auth === "proxy" ? PROXY : VERIFY;
}

/** The scope the generated scoped tool needs. */
export const RESET_SCOPE = "greetings:reset";
