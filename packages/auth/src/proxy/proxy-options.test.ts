import { createServer, DefinitionError, type LogEntry } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { oauthUpstream } from "../upstream/oauth-upstream.js";
import { oauthProxy } from "./oauth-proxy.js";

// What oauthProxy refuses to start with, and what development allows.

const upstream = oauthUpstream({
  authorizationEndpoint: "https://provider.example/authorize",
  tokenEndpoint: "https://provider.example/token",
  clientId: "c",
  clientSecret: "s",
  scopes: [],
  subject: (profile) => String(profile.id),
});

describe("oauthProxy's secret", () => {
  it("is required, at least 32 bytes, unless in development on the memory engine (then random, with a warning)", () => {
    const logged: LogEntry[] = [];
    const server = createServer({ name: "s", version: "1", logger: (entry) => logged.push(entry) });
    expect(() => oauthProxy(server, { upstream })).toThrow(DefinitionError);
    expect(() => oauthProxy(server, { upstream, secret: "too short" })).toThrow(/at least 32 bytes/);
    expect(logged).toEqual([]);
    const auth = oauthProxy(server, { upstream, development: true });
    expect(Object.keys(auth.routes)).toContain("POST /token");
    expect(logged.map((entry) => [entry.level, entry.message])).toEqual([
      ["warning", expect.stringContaining("no secret given (development)")],
    ]);
    // On a shared engine every process must seal alike: development or not, a secret is required.
    const shared = createServer({ name: "s", version: "1", engine: createRedisEngine({ url: "redis://127.0.0.1:1" }) });
    expect(() => oauthProxy(shared, { upstream, development: true })).toThrow(DefinitionError);
  });

  it("an issuer that is no origin, and a lifetime that is no whole number of seconds, are DefinitionErrors", () => {
    const server = createServer({ name: "s", version: "1" });
    const secret = "x".repeat(32);
    expect(() => oauthProxy(server, { upstream, secret, issuer: "https://mcp.example/auth" })).toThrow(DefinitionError);
    expect(() => oauthProxy(server, { upstream, secret, accessTokenTtlSec: 0 })).toThrow(DefinitionError);
    expect(() => oauthProxy(server, { upstream, secret, refreshTokenTtlSec: Number.NaN })).toThrow(DefinitionError);
    const auth = oauthProxy(server, {
      upstream,
      secret,
      issuer: "https://mcp.example",
      clients: { dynamicRegistration: false },
    });
    expect(Object.keys(auth.routes)).not.toContain("POST /register");
  });
});
