import type { OAuthClient } from "../clients/client.js";
import { type AuthorizationRequest, readAuthorization } from "./authorization-request.js";
import { randomId, s256 } from "./pkce.js";
import { errorPage, escapeHtml, page, redirect, withParams } from "./replies.js";
import { issuerOf, PENDING_TTL_MS, type ProxySettings } from "./settings.js";

// `/authorize`: GET checks the request and shows the consent page; POST is the person's answer. The page's form
// carries the consent's id and a CSRF token that must equal the cookie set with the page (SameSite=Lax: a form
// posted from another site carries no cookie), so no other site can approve on the person's behalf.

/** What the consent page stands for, kept sealed until the person answers. */
interface Consent {
  readonly request: AuthorizationRequest;
  readonly csrf: string;
}

/** A sign-in sent to the upstream, found again by the `state` it was sent with. */
export interface Pending {
  readonly request: AuthorizationRequest;
  readonly verifier: string;
  readonly nonce: string;
  /** The consent cookie's value: the callback must come back to the same browser. */
  readonly browser: string;
}

const COOKIE = "toolsmith_consent";

/** The value of the consent cookie, if the request carries one. */
export function consentCookie(request: Request): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE) return value.join("=");
  }
  return undefined;
}

function setCookie(request: Request, value: string): string {
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${PENDING_TTL_MS / 1000}${secure}`;
}

function hostOf(uri: string): string {
  return URL.canParse(uri) ? new URL(uri).host : uri;
}

function consentPage(
  settings: ProxySettings,
  client: OAuthClient,
  request: AuthorizationRequest,
  id: string,
  csrf: string,
) {
  const name = client.clientName ?? "An application";
  // The client's own address: its metadata document's URL, else where it wants you sent back.
  const from = hostOf(client.source === "metadata-document" ? client.clientId : request.redirectUri);
  const scopes = request.scope === "" ? [] : request.scope.split(" ");
  const asks =
    scopes.length === 0
      ? "<p>It asks for no particular permissions.</p>"
      : `<p>It asks for:</p>\n<ul>${scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join("")}</ul>`;
  const title = settings.consentTitle || `Sign in to ${hostOf(request.issuer)}`;
  return page(
    200,
    title,
    `<h1>${escapeHtml(title)}</h1>
<p><strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(from)}</code>) wants to use <code>${escapeHtml(request.resource)}</code> as you.</p>
${asks}
<p>If you approve, you sign in with ${escapeHtml(settings.upstream.name)} next, then return to <code>${escapeHtml(hostOf(request.redirectUri))}</code>.</p>
<form method="post" action="authorize">
<input type="hidden" name="consent" value="${escapeHtml(id)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** GET /authorize: the request checked, then the consent page (or the error the RFC says). */
export async function showConsent(settings: ProxySettings, request: Request): Promise<Response> {
  const read = await readAuthorization(settings, request, new URL(request.url).searchParams);
  if (read instanceof Response) return read;
  const id = randomId();
  // One cookie per browser: several tabs signing in at once share it.
  const csrf = consentCookie(request) ?? randomId();
  await settings.vault.put("consent", id, { request: read.request, csrf } satisfies Consent, PENDING_TTL_MS);
  const shown = consentPage(settings, read.client, read.request, id, csrf);
  shown.headers.set("set-cookie", setCookie(request, csrf));
  return shown;
}

/** POST /authorize: the person's answer. Approved, they go to the upstream; denied, back to the client. */
export async function answerConsent(settings: ProxySettings, request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const id = form.get("consent");
  const consent = id ? await settings.vault.take<Consent>("consent", id) : undefined;
  const cookie = consentCookie(request);
  if (consent === undefined || cookie === undefined || form.get("csrf") !== cookie || consent.csrf !== cookie) {
    return errorPage(
      400,
      "This sign-in page expired or was not sent from this server. Start again from the application.",
    );
  }
  const { redirectUri, state } = consent.request;
  const iss = issuerOf(settings, request);
  if (form.get("decision") !== "approve") {
    return redirect(
      withParams(redirectUri, { error: "access_denied", error_description: "the person declined", state, iss }),
    );
  }
  const upstreamState = randomId();
  const verifier = randomId();
  const nonce = randomId();
  const pending: Pending = { request: consent.request, verifier, nonce, browser: cookie };
  await settings.vault.put("pending", upstreamState, pending, PENDING_TTL_MS);
  try {
    const url = await settings.upstream.authorizationUrl({
      redirectUri: `${iss}/oauth/callback`,
      state: upstreamState,
      codeChallenge: await s256(verifier),
      nonce,
    });
    return redirect(url);
  } catch (error) {
    settings.warn(`OAuth proxy: the upstream could not be reached to start a sign-in: ${String(error)}`, error);
    return redirect(
      withParams(redirectUri, {
        error: "temporarily_unavailable",
        error_description: "the identity provider cannot be reached; try again later",
        state,
        iss,
      }),
    );
  }
}
