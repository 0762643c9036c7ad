import { UpstreamError, type UpstreamTokens } from "../upstream/upstream.js";
import { consentCookie, type Pending } from "./consent.js";
import { randomId } from "./pkce.js";
import { errorPage, redirect, withParams } from "./replies.js";
import { CODE_TTL_MS, PENDING_TTL_MS, type ProxySettings } from "./settings.js";

// `/oauth/callback`: the upstream sends the person back with its code. The pending sign-in is taken by `state`
// (once: a replayed callback finds nothing), the code exchanged, the upstream's tokens sealed in a grant, and our
// own code (single use, a minute) sent to the client, bound to what it asked with.

/** A person's sign-in through one client: the upstream's tokens and what our tokens may carry. */
export interface Grant {
  readonly clientId: string;
  readonly subject: string;
  readonly scope: string;
  readonly resource: string;
  readonly upstream: UpstreamTokens;
}

/** Our authorization code: the grant it opens, bound to the request it answers. */
export interface Code {
  readonly grant: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly scope: string;
}

export async function callback(settings: ProxySettings, request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const state = params.get("state");
  const pending = state ? await settings.vault.take<Pending>("pending", state) : undefined;
  if (pending === undefined) {
    return errorPage(
      400,
      "This sign-in is unknown or expired (its state does not match). Start again from the application.",
    );
  }
  if (consentCookie(request) !== pending.browser) {
    return errorPage(400, "This sign-in was started in another browser. Start again from the application.");
  }
  const { request: asked } = pending;
  const back = (error: string, description: string) =>
    redirect(
      withParams(asked.redirectUri, { error, error_description: description, state: asked.state, iss: asked.issuer }),
    );
  const code = params.get("code");
  if (params.has("error") || !code) {
    const denied = params.get("error") === "access_denied";
    return back(
      denied ? "access_denied" : "server_error",
      denied ? "the sign-in was declined" : "the identity provider refused the sign-in",
    );
  }
  let signedIn: { tokens: UpstreamTokens; subject: string };
  try {
    signedIn = await settings.upstream.exchange(code, pending.verifier, {
      redirectUri: `${asked.issuer}/oauth/callback`,
      state: state ?? "",
      codeChallenge: "",
      nonce: pending.nonce,
    });
  } catch (error) {
    settings.warn(`OAuth proxy: the sign-in at the upstream failed: ${String(error)}`, error);
    const unavailable = !(error instanceof UpstreamError) || error.reason === "unavailable";
    return unavailable
      ? back("temporarily_unavailable", "the identity provider did not answer as expected; try again later")
      : back("access_denied", "the identity provider refused the sign-in");
  }
  const grantId = randomId();
  const grant: Grant = {
    clientId: asked.clientId,
    subject: signedIn.subject,
    scope: asked.scope,
    resource: asked.resource,
    upstream: signedIn.tokens,
  };
  // Kept while the code may be exchanged; the exchange keeps it as long as its refresh tokens live.
  await settings.vault.put("grant", grantId, grant, PENDING_TTL_MS);
  const ours = randomId();
  const bound: Code = {
    grant: grantId,
    clientId: asked.clientId,
    redirectUri: asked.redirectUri,
    codeChallenge: asked.codeChallenge,
    resource: asked.resource,
    scope: asked.scope,
  };
  // Which grant the code opened, kept from now on: a second use, even one racing the first, finds it and revokes.
  await settings.vault.put("spent", ours, { grant: grantId }, settings.refreshTokenTtlSec * 1000);
  await settings.vault.put("code", ours, bound, CODE_TTL_MS);
  return redirect(withParams(asked.redirectUri, { code: ours, state: asked.state, iss: asked.issuer }));
}
