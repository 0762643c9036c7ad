import { oauthUpstream } from "./oauth-upstream.js";
import { oidcUpstream } from "./oidc-upstream.js";
import type { Upstream } from "./upstream.js";

// Providers people have, preset: only this server's registration with them is given.

/** This server's OAuth app at a provider. */
export interface PresetOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes asked of the provider (each preset has a default). */
  readonly scopes?: readonly string[];
}

/** GitHub (an OAuth app or a GitHub App's OAuth credentials): the person is their numeric GitHub user id. */
export function githubUpstream(options: PresetOptions): Upstream {
  return oauthUpstream({
    name: "GitHub",
    authorizationEndpoint: "https://github.com/login/oauth/authorize",
    tokenEndpoint: "https://github.com/login/oauth/access_token",
    userinfoEndpoint: "https://api.github.com/user",
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? ["read:user"],
    tokenEndpointAuthMethod: "client_secret_post",
    // The numeric id: a login can be renamed and then taken by someone else.
    subject: (profile) => (typeof profile.id === "number" ? String(profile.id) : ""),
  });
}

/** Google (an OAuth client of type "Web application"): asks for offline access, so its tokens can be refreshed. */
export function googleUpstream(options: PresetOptions): Upstream {
  return oidcUpstream({
    name: "Google",
    issuer: "https://accounts.google.com",
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? ["email", "profile"],
    authorizationParams: { access_type: "offline", prompt: "consent" },
  });
}
