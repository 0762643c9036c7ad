import { jwtVerifier, type Verifier } from "@toolsmith/auth";
import type { ListenOptions } from "@toolsmith/transport-http";
import { SCOPES } from "./notes.js";

/** How the server signs people in: what `listen` takes, and what to do once it knows its URL and when it stops. */
export interface SignIn extends Pick<ListenOptions, "authenticate" | "resourceMetadata"> {
  /** Where people sign in, for the start-up line. */
  readonly issuer: string;
  /** Tells the sign-in the URL of the MCP endpoint (the resource tokens must be issued for). */
  serving(url: string): void;
  close(): Promise<void>;
}

/** Where tokens come from: an issuer (OpenID Connect or RFC 8414), or none in development. */
export interface SignInOptions {
  /** The identity provider that issues this server's tokens; required unless `development`. */
  issuer?: string;
  /** The public URL of the MCP endpoint, when clients reach it through another (a proxy, a load balancer). */
  resource?: string;
  /** Start a local OpenID provider on 127.0.0.1 (any name and password signs in) when no issuer is given. */
  development?: boolean;
}

/**
 * Set-up 1, a server behind an identity provider that already issues tokens: its JWT access tokens are verified
 * (`jwtVerifier`: signature by the issuer's keys, `iss`, `aud` this server's resource URL, expiry), and the
 * protected-resource metadata names the provider, so clients find where to sign in.
 */
export async function signIn(options: SignInOptions): Promise<SignIn> {
  // The local provider is loaded only in development: a deployed server never starts it.
  const local =
    options.issuer === undefined && options.development
      ? await (await import("@toolsmith/tests-idp")).startIdp({ scopes: SCOPES })
      : undefined;
  const issuer = options.issuer ?? local?.issuer;
  if (issuer === undefined) throw new Error("sign-in needs ISSUER (your identity provider), or --dev for a local one");
  let verify: Verifier | undefined;
  return {
    issuer,
    authenticate: (request) => {
      if (verify === undefined) throw new Error("sign-in: serving(url) was not called");
      return verify(request);
    },
    // scopes_supported: every scope the server's tools use, as transport-http lists them by default.
    resourceMetadata: { authorizationServers: [issuer] },
    serving(url) {
      verify = jwtVerifier({ issuer, audience: options.resource ?? url });
    },
    close: async () => local?.close(),
  };
}
