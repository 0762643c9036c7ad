import { createServer as createNodeServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { type Idp, signInWithChromium } from "@toolsmith/tests-idp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthUpstream } from "../upstream/oauth-upstream.js";
import { oidcUpstream } from "../upstream/oidc-upstream.js";
import {
  authorizeUrl,
  consentForm,
  cookieOf,
  idpUpstream,
  type Proxied,
  pkce,
  postForm,
  REDIRECT,
  registerClient,
  registerProxy,
  startProxied,
  startSignIn,
  upstreamIdp,
} from "./proxy.test-util.js";

// Every hostile authorization request, answered the RFC 6749 way: before the client's redirect URI is trusted, a page
// (never a redirect: an open redirect); after, a redirect carrying `error`, `state` and `iss`. Then the consent
// form's CSRF check, a tampered `state`, and an upstream that is down or answers garbage. No browser is needed.

let idp: Idp;
let proxied: Proxied;
let clientId: string;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  ({ idp, proxied, clientId } = await startSignIn({ scopes: ["notes:read"], consent: { title: "Notes <sign-in>" } }));
}, 120_000);

afterAll(async () => {
  for (const each of open) await each.close();
  await proxied?.http.close();
  await idp?.close();
});

async function authorize(origin: string, params: Record<string, string | undefined>, cookie?: string) {
  const response = await fetch(authorizeUrl(origin, params), {
    redirect: "manual",
    headers: cookie === undefined ? {} : { cookie },
  });
  return { response, text: await response.text(), location: response.headers.get("location") };
}

async function valid(origin = proxied.origin, client = clientId) {
  const { challenge, state, verifier } = await pkce();
  return {
    verifier,
    params: {
      response_type: "code",
      client_id: client,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      scope: "notes:read",
      resource: `${origin}/mcp`,
    } as Record<string, string | undefined>,
  };
}

/** The consent page for a valid request, approved (or denied): the answer to the form's POST. */
async function consent(origin: string, client: string, decision = "approve") {
  const { params } = await valid(origin, client);
  const shown = await authorize(origin, params);
  const cookie = cookieOf(shown.response.headers.get("set-cookie"));
  const form = consentForm(shown.text);
  const answered = await fetch(`${origin}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin },
    body: new URLSearchParams({ ...form, decision }),
  });
  return { answered, cookie, state: params.state, location: answered.headers.get("location") ?? "" };
}

describe("an authorization request the client's redirect URI cannot be trusted for", () => {
  it("is an error page, never a redirect: unknown client, a redirect URI differing by a character, another site", async () => {
    const { params } = await valid();
    for (const change of [
      { client_id: "no-such-client" },
      { client_id: undefined },
      { redirect_uri: "http://127.0.0.1:9/callbacK" },
      { redirect_uri: "http://127.0.0.1:9/callback/" },
      { redirect_uri: "https://evil.example/callback" },
      { redirect_uri: undefined },
    ]) {
      const { response, text, location } = await authorize(proxied.origin, { ...params, ...change });
      expect([response.status, location, response.headers.get("content-type")]).toEqual([
        400,
        null,
        "text/html; charset=utf-8",
      ]);
      expect(text).toContain("Sign-in failed");
      expect(text).not.toContain("evil.example");
    }
  });
});

describe("an authorization request from a known client and redirect URI", () => {
  it("goes back to the client with error, state and iss (RFC 9207) for missing or plain PKCE, a wrong resource or scope", async () => {
    const { params } = await valid();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge_method: undefined }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ resource: `${proxied.origin}/other` }, "invalid_target"],
      [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
      [{ scope: "notes:read admin" }, "invalid_scope"],
      [{ response_type: "token" }, "unsupported_response_type"],
    ];
    for (const [change, error] of cases) {
      const { response, location } = await authorize(proxied.origin, { ...params, ...change });
      expect(response.status).toBe(303);
      const back = new URL(location ?? "");
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect([back.searchParams.get("error"), back.searchParams.get("state"), back.searchParams.get("iss")]).toEqual([
        error,
        params.state,
        proxied.origin,
      ]);
    }
  });

  it("takes offline_access (listed in its metadata) as a request for a refresh token, never as a scope shown or granted", async () => {
    const metadata = (await (await fetch(`${proxied.origin}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    expect(metadata.scopes_supported).toEqual(["notes:read", "offline_access"]);
    const { params } = await valid();
    const { response, text } = await authorize(proxied.origin, { ...params, scope: "notes:read offline_access" });
    expect(response.status).toBe(200);
    expect(text).toContain("<li><code>notes:read</code></li>");
    expect(text).not.toContain("offline_access");
  });

  it("shows a consent page naming the client, its host and the scopes, everything escaped, framed by no one", async () => {
    const { params } = await valid();
    const { response, text } = await authorize(proxied.origin, params);
    expect(response.status).toBe(200);
    expect(text).toContain("Notes &lt;sign-in&gt;");
    expect(text).toContain("<strong>Test &lt;Client&gt;</strong> (<code>127.0.0.1:9</code>)");
    expect(text).toContain("<li><code>notes:read</code></li>");
    expect(text).not.toContain("<Client>");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("set-cookie")).toMatch(/^toolsmith_consent=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
  });

  it("takes the consent form only with the cookie it was shown with (CSRF), once", async () => {
    const { params } = await valid();
    const shown = await authorize(proxied.origin, params);
    const cookie = cookieOf(shown.response.headers.get("set-cookie"));
    const form = consentForm(shown.text);
    const post = (body: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${proxied.origin}/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(body),
      });
    // Another site's form: no cookie (SameSite), or a csrf of its own.
    expect((await post({ ...form, decision: "approve" }, {})).status).toBe(400);
    const { params: again } = await valid();
    const second = await authorize(proxied.origin, again);
    const forged = await post({ ...consentForm(second.text), csrf: "forged", decision: "approve" }, { cookie });
    expect(forged.status).toBe(400);
    // The first consent was taken by the cookieless try: it cannot be replayed.
    expect((await post({ ...form, decision: "approve" }, { cookie })).status).toBe(400);
  });

  it("goes back with access_denied when the person denies", async () => {
    const { answered, state, location } = await consent(proxied.origin, clientId, "deny");
    expect(answered.status).toBe(303);
    const back = new URL(location);
    expect([back.searchParams.get("error"), back.searchParams.get("state"), back.searchParams.get("iss")]).toEqual([
      "access_denied",
      state,
      proxied.origin,
    ]);
  });
});

describe("the upstream's callback", () => {
  it("refuses a tampered state, and a callback from another browser, with a page", async () => {
    const { location, cookie } = await consent(proxied.origin, clientId);
    const upstream = new URL(location);
    expect(upstream.origin).toBe(idp.issuer);
    expect(upstream.searchParams.get("code_challenge_method")).toBe("S256");
    const state = upstream.searchParams.get("state") ?? "";
    const tampered = `${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`;
    const callback = (value: string, headers: Record<string, string>) =>
      fetch(`${proxied.origin}/oauth/callback?code=any&state=${value}`, { redirect: "manual", headers });
    const refused = await callback(tampered, { cookie });
    expect([refused.status, refused.headers.get("location")]).toEqual([400, null]);
    const elsewhere = await callback(state, {});
    expect([elsewhere.status, elsewhere.headers.get("location")]).toEqual([400, null]);
    expect(await elsewhere.text()).toContain("another browser");
  });
});

/** A provider that answers every request with `body` (status 200). */
async function garbage(body: string) {
  const server: NodeServer = createNodeServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(body);
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("an upstream that is down or answers garbage", () => {
  const back = (location: string) => new URL(location).searchParams;

  it("sends the person back with temporarily_unavailable when discovery fails, and logs why", async () => {
    const down = await upstreamIdp();
    const issuer = down.issuer;
    await down.close();
    for (const upstream of [
      oidcUpstream({ issuer, clientId: "c", clientSecret: "s" }),
      oidcUpstream({ issuer: await garbage("<html>not json"), clientId: "c", clientSecret: "s" }),
      oidcUpstream({
        issuer: await garbage(JSON.stringify({ issuer: "https://other.example" })),
        clientId: "c",
        clientSecret: "s",
      }),
    ]) {
      const other = await startProxied({ upstream });
      open.push({ close: () => other.http.close() });
      const client = await registerClient(other.origin, REDIRECT);
      const { answered, location, state } = await consent(other.origin, client);
      expect(answered.status).toBe(303);
      expect([back(location).get("error"), back(location).get("state")]).toEqual(["temporarily_unavailable", state]);
      expect(other.logged.some((entry) => entry.message.includes("the upstream could not be reached"))).toBe(true);
    }
  });

  it("sends the person back with temporarily_unavailable when the token endpoint answers garbage or too much", async () => {
    for (const body of [
      "not json at all",
      JSON.stringify({ token_type: "bearer" }),
      `{"a":"${"x".repeat(2_000_000)}"}`,
    ]) {
      const provider = await garbage(body);
      const upstream = oauthUpstream({
        authorizationEndpoint: `${provider}/authorize`,
        tokenEndpoint: `${provider}/token`,
        clientId: "c",
        clientSecret: "s",
        scopes: ["profile"],
        subject: (profile) => String(profile.id),
      });
      const other = await startProxied({ upstream });
      open.push({ close: () => other.http.close() });
      const client = await registerClient(other.origin, REDIRECT);
      const { location, cookie, state } = await consent(other.origin, client);
      const sent = new URL(location);
      expect(`${sent.origin}${sent.pathname}`).toBe(`${provider}/authorize`);
      const code = "the-upstream-code-never-logged";
      const answered = await fetch(
        `${other.origin}/oauth/callback?code=${code}&state=${sent.searchParams.get("state")}`,
        { redirect: "manual", headers: { cookie } },
      );
      expect(answered.status).toBe(303);
      const params = back(answered.headers.get("location") ?? "");
      expect([params.get("error"), params.get("state"), params.get("iss")]).toEqual([
        "temporarily_unavailable",
        state,
        other.origin,
      ]);
      expect(JSON.stringify(other.logged.map((entry) => entry.message))).not.toContain(code);
    }
  });
});

describe("an authorization code", () => {
  it("expires after a minute on the engine's clock", async () => {
    let now = Date.now();
    const engine = createMemoryEngine({ now: () => now });
    const timed = await startProxied({ upstream: idpUpstream(idp), engine });
    open.push({ close: () => timed.http.close() });
    await registerProxy(idp, [proxied.origin, timed.origin]);
    const client = await registerClient(timed.origin, REDIRECT);
    const { params, verifier } = await valid(timed.origin, client);
    // A person consents and signs in, in a browser; the code reaches the client's redirect URI.
    const landed = new URL(await signInWithChromium(authorizeUrl(timed.origin, params)));
    const code = landed.searchParams.get("code") ?? "";
    expect(code).not.toBe("");
    now += 61_000;
    const late = await postForm(`${timed.origin}/token`, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: client,
      code_verifier: verifier,
    });
    expect([late.status, late.body.error]).toEqual([400, "invalid_grant"]);
  }, 120_000);
});
