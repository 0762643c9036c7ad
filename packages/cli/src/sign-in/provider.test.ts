import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CredentialStore } from "./credentials.js";
import { CliOAuthProvider, type ProviderOptions } from "./provider.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SERVER = new URL("https://mcp.example.com/mcp");
function provider(extra: Partial<ProviderOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "toolsmith-provider-"));
  made.push(dir);
  const store = new CredentialStore(dir);
  let now = 1_000_000;
  const states: string[] = [];
  const built = new CliOAuthProvider({
    store,
    server: SERVER,
    redirectUrl: () => "http://127.0.0.1:4711/callback",
    onState: (state) => states.push(state),
    onRedirect: () => {},
    now: () => now,
    ...extra,
  });
  return { provider: built, store, states, advance: (ms: number) => (now += ms) };
}

describe("toolsmith's OAuth client provider", () => {
  it("registers as a public client for the loopback redirect, with refresh tokens", () => {
    const { provider: p } = provider();
    expect(p.clientMetadata).toEqual({
      client_name: "toolsmith",
      redirect_uris: ["http://127.0.0.1:4711/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    expect(p.redirectUrl).toBe("http://127.0.0.1:4711/callback");
  });

  it("makes a fresh unguessable state each time and tells the receiver", () => {
    const { provider: p, states } = provider();
    const a = p.state();
    const b = p.state();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(states).toEqual([a, b]);
  });

  it("keeps the registration, and registers again when it was made for another callback port", () => {
    const { provider: p, store } = provider();
    p.saveClientInformation({ client_id: "c1", redirect_uris: ["http://127.0.0.1:4711/callback"] } as never);
    expect(p.clientInformation()?.client_id).toBe("c1");
    store.update(SERVER, (kept) => ({
      ...kept,
      client: { client_id: "c1", redirect_uris: ["http://127.0.0.1:9/callback"] } as never,
    }));
    expect(p.clientInformation()).toBeUndefined();
  });

  it("uses --client-id as it is, keeping no registration", () => {
    const { provider: p, store } = provider({ clientId: "pre-registered" });
    expect(p.clientInformation()).toEqual({ client_id: "pre-registered" });
    p.saveClientInformation({ client_id: "pre-registered", issuer: "https://idp" });
    expect(store.read(SERVER).client).toBeUndefined();
  });

  it("sends no expired access token (the 401 that follows refreshes it) but still hands the refresh token over", () => {
    const { provider: p, store, advance } = provider();
    p.saveTokens({ access_token: "at", token_type: "Bearer", expires_in: 60, refresh_token: "rt" });
    expect(store.read(SERVER).expiresAt).toBe(1_060_000);
    expect(p.tokens()?.access_token).toBe("at");
    advance(31_000);
    expect(p.tokens()).toBeUndefined();
    expect(p.tokens({ issuer: "https://idp" })?.refresh_token).toBe("rt");
    p.saveTokens({ access_token: "at2", token_type: "Bearer" });
    expect(store.read(SERVER).expiresAt).toBeUndefined();
    expect(p.tokens()?.access_token).toBe("at2");
  });

  it("keeps the PKCE verifier in memory only, and forgets what the official client says is no longer valid", () => {
    const { provider: p, store } = provider();
    expect(() => p.codeVerifier()).toThrow(/no sign-in/);
    p.saveCodeVerifier("verifier");
    expect(p.codeVerifier()).toBe("verifier");
    p.saveTokens({ access_token: "at", token_type: "Bearer", expires_in: 60 });
    p.saveClientInformation({ client_id: "c1" });
    expect(JSON.stringify(store.read(SERVER))).not.toContain("verifier");
    p.invalidateCredentials("tokens");
    expect(store.read(SERVER)).toEqual({ resource: SERVER.href, client: { client_id: "c1" } });
    p.invalidateCredentials("all");
    expect(store.read(SERVER)).toEqual({ resource: SERVER.href });
    expect(() => p.codeVerifier()).toThrow(/no sign-in/);
  });
});

describe("a registration limited to some scopes", () => {
  it("is made again when the server asks for a scope it does not cover (a step-up)", () => {
    const { provider: p } = provider();
    p.saveClientInformation({
      client_id: "c1",
      redirect_uris: ["http://127.0.0.1:4711/callback"],
      scope: "notes:read offline_access",
    } as never);
    p.wants("notes:read");
    expect(p.clientInformation()?.client_id).toBe("c1");
    p.wants("notes:write");
    expect(p.clientInformation()).toBeUndefined();
  });
});
