import { randomBytes } from "node:crypto";
import {
  githubUpstream,
  googleUpstream,
  jwtVerifier,
  oauthProxy,
  oidcUpstream,
  type Upstream,
  type Verifier,
} from "@toolsmith/auth";
import type { Server } from "@toolsmith/core";
import type { ListenOptions } from "@toolsmith/transport-http";
import { SCOPES } from "./notes.js";

// How the server signs people in: every line of set-up the example has, chosen by environment variables.
//   (default) the OAuth proxy in front of one upstream: OIDC_ISSUER + OIDC_CLIENT_ID + OIDC_CLIENT_SECRET, or
//             GITHUB_CLIENT_ID + GITHUB_CLIENT_SECRET, or GOOGLE_CLIENT_ID + GOOGLE_CLIENT_SECRET; AUTH_SECRET (32+
//             bytes) seals its state, PUBLIC_URL is the server's public origin (its issuer). --dev without an
//             upstream starts a local OpenID provider (tests/idp) as the upstream.
//   SIGN_IN=verify: a resource server only, verifying the tokens ISSUER issues for AUDIENCE (default the MCP URL).

/** What `listen` takes, and what to do once the server knows its URL and when it stops. */
export interface SignIn extends Pick<ListenOptions, "authenticate" | "resourceMetadata" | "routes" | "allowedHosts"> {
  /** Where people sign in, for the start-up line. */
  readonly describe: string;
  /** Tells the sign-in the URL of the MCP endpoint, once listening. */
  serving(url: string): Promise<void>;
  close(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

const CALLBACK = "/oauth/callback";
// The local provider's registration for the proxy: known to both, as a provider's console would show it.
const DEV_CLIENT = { id: "sign-in-example", secret: randomBytes(32).toString("base64url") };

/** The sign-in `env` configures (`--dev` is `development`), for `server`. */
export async function signIn(server: Server, env: Env, development: boolean): Promise<SignIn> {
  return env.SIGN_IN === "verify" ? verifying(env) : proxying(server, env, development);
}

/** Set-up 1: the identity provider at ISSUER already issues tokens for this server; they are verified only. */
function verifying(env: Env): SignIn {
  const issuer = env.ISSUER;
  if (issuer === undefined) throw new Error("SIGN_IN=verify needs ISSUER, the identity provider issuing the tokens");
  let verify: Verifier | undefined;
  return {
    describe: `verifying tokens ${issuer} issues`,
    authenticate: (request) => {
      if (verify === undefined) throw new Error("sign-in: serving(url) was not called");
      return verify(request);
    },
    // scopes_supported: every scope the server's tools use, as transport-http lists them by default.
    resourceMetadata: { authorizationServers: [issuer] },
    async serving(url) {
      verify = jwtVerifier({ issuer, audience: env.AUDIENCE ?? url });
    },
    close: async () => {},
  };
}

interface Chosen {
  readonly upstream: Upstream;
  readonly name: string;
  /** The upstream's userinfo endpoint, for `whoami_upstream`. */
  readonly userinfo: () => Promise<string>;
  readonly close?: () => Promise<void>;
  readonly serving?: (url: string) => Promise<void>;
}

/** Set-up 2: the server is its own authorization server in front of an upstream people sign in with. */
async function proxying(server: Server, env: Env, development: boolean): Promise<SignIn> {
  const chosen = await chooseUpstream(env, development);
  const issuer = env.PUBLIC_URL === undefined ? undefined : new URL(env.PUBLIC_URL).origin;
  const auth = oauthProxy(server, {
    upstream: chosen.upstream,
    ...(env.AUTH_SECRET === undefined ? {} : { secret: env.AUTH_SECRET }),
    ...(issuer === undefined ? {} : { issuer }),
    development,
    scopes: SCOPES,
    consent: { title: "Notes" },
  });
  // A tool that calls the upstream as the person: the upstream's token stays on the server.
  server.tool({
    name: "whoami_upstream",
    description: `What ${chosen.name} says about you (its userinfo), asked with the token you signed in with there.`,
    annotations: { readOnlyHint: true, openWorldHint: true },
    handler: async (_input, ctx) => {
      const answer = await fetch(await chosen.userinfo(), {
        headers: { authorization: `Bearer ${await auth.upstreamToken(ctx)}`, "user-agent": "toolsmith-sign-in" },
        signal: AbortSignal.timeout(10_000),
      });
      if (!answer.ok) throw new Error(`${chosen.name} answered ${answer.status}`);
      return { profile: JSON.parse(await boundedText(answer, chosen.name)) as Record<string, unknown> };
    },
  });
  return {
    describe: `through this server (OAuth proxy) at ${chosen.name}`,
    authenticate: auth.authenticate,
    resourceMetadata: auth.resourceMetadata,
    routes: auth.routes,
    ...(issuer === undefined ? {} : { allowedHosts: [new URL(issuer).host] }),
    serving: async (url) => chosen.serving?.(url),
    close: async () => chosen.close?.(),
  };
}

async function chooseUpstream(env: Env, development: boolean): Promise<Chosen> {
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = env;
  if (OIDC_ISSUER !== undefined && OIDC_CLIENT_ID !== undefined && OIDC_CLIENT_SECRET !== undefined) {
    const upstream = oidcUpstream({ issuer: OIDC_ISSUER, clientId: OIDC_CLIENT_ID, clientSecret: OIDC_CLIENT_SECRET });
    return { upstream, name: new URL(OIDC_ISSUER).host, userinfo: discoverUserinfo(OIDC_ISSUER) };
  }
  if (env.GITHUB_CLIENT_ID !== undefined && env.GITHUB_CLIENT_SECRET !== undefined) {
    const upstream = githubUpstream({ clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET });
    return { upstream, name: "GitHub", userinfo: async () => "https://api.github.com/user" };
  }
  if (env.GOOGLE_CLIENT_ID !== undefined && env.GOOGLE_CLIENT_SECRET !== undefined) {
    const upstream = googleUpstream({ clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET });
    return { upstream, name: "Google", userinfo: discoverUserinfo("https://accounts.google.com") };
  }
  if (!development) {
    throw new Error(
      "sign-in needs an upstream: OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET; or GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET; or GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or --dev for a local provider)",
    );
  }
  // The local provider is loaded only in development: a deployed server never starts it.
  const local = await (await import("@toolsmith/tests-idp")).startIdp({ scopes: ["openid", "profile", "email"] });
  const userinfo = discoverUserinfo(local.issuer);
  return {
    upstream: oidcUpstream({ issuer: local.issuer, clientId: DEV_CLIENT.id, clientSecret: DEV_CLIENT.secret }),
    name: `the local provider at ${local.issuer} (any name and password)`,
    userinfo,
    // The proxy's callback is on the port the server got: the provider learns it now.
    serving: (url) =>
      local.addClient({
        client_id: DEV_CLIENT.id,
        client_secret: DEV_CLIENT.secret,
        redirect_uris: [`${new URL(url).origin}${CALLBACK}`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    close: () => local.close(),
  };
}

/** The userinfo endpoint an OpenID provider's metadata names: asked once, asked again after a failure. */
function discoverUserinfo(issuer: string): () => Promise<string> {
  let found: Promise<string> | undefined;
  const discover = async () => {
    const answer = await fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) throw new Error(`${issuer}'s metadata answered ${answer.status}`);
    const metadata = JSON.parse(await boundedText(answer, issuer)) as { userinfo_endpoint?: unknown };
    if (typeof metadata.userinfo_endpoint !== "string") throw new Error(`${issuer} names no userinfo endpoint`);
    return metadata.userinfo_endpoint;
  };
  return () => {
    found ??= discover().catch((error: unknown) => {
      found = undefined;
      throw error;
    });
    return found;
  };
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** An answer's text, refused past 64 KiB (read no further). */
async function boundedText(answer: Response, from: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of answer.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the body: nothing more is read.
    if (size > MAX_ANSWER_BYTES) throw new Error(`${from} answered more than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
