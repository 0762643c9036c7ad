import { randomBytes } from "node:crypto";
import { oauthProxy, oidcUpstream } from "@toolsmith/auth";
import { createServer } from "@toolsmith/core";
import { type Idp, signInWithChromium, startIdp } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUTHORIZATION_SCENARIOS,
  callbackUri,
  freePort,
  runAuthorizationConformance,
} from "./conformance-authorization.test-util.js";

// The official conformance suite's authorization server scenarios (`conformance authorization`) against a Toolsmith
// server whose oauthProxy stands in front of a real OpenID provider (oidc-provider, tests/idp). The suite waits for
// a person to sign in; headless Chromium does it (the provider's login and consent, then the proxy's consent page).
const UPSTREAM_CLIENT = { id: "toolsmith-conformance-proxy", secret: randomBytes(32).toString("base64url") };

describe("the official conformance suite's authorization server scenarios against oauthProxy", () => {
  let idp: Idp | undefined;
  let listening: HttpServer | undefined;
  let issuer = "";

  beforeAll(async () => {
    idp = await startIdp();
    const server = createServer({ name: "conformance-authorization", version: "1.0.0" });
    server.tool({ name: "whoami", description: "The caller's subject", handler: (_input, ctx) => ctx.auth?.subject });
    const auth = oauthProxy(server, {
      upstream: oidcUpstream({
        issuer: idp.issuer,
        clientId: UPSTREAM_CLIENT.id,
        clientSecret: UPSTREAM_CLIENT.secret,
      }),
      secret: randomBytes(48).toString("base64url"),
      // The issuer is http on loopback, as the test runs it.
      development: true,
    });
    listening = await listen(server, { port: 0, host: "127.0.0.1", log: null, ...auth });
    // The proxy's issuer is the origin requests are addressed to: passed to the suite exactly, no trailing slash.
    issuer = new URL(listening.url).origin;
    await idp.addClient({
      client_id: UPSTREAM_CLIENT.id,
      client_secret: UPSTREAM_CLIENT.secret,
      redirect_uris: [`${issuer}/oauth/callback`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    });
  });

  afterAll(async () => {
    await listening?.close();
    await idp?.close();
  });

  it("passes authorization-server-metadata-endpoint and authorization-code-grant, every check SUCCESS", async () => {
    // The suite registers no client: a public one is registered here (RFC 7591), for the suite's own callback.
    const port = await freePort();
    const registered = await fetch(`${issuer}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "MCP conformance suite",
        redirect_uris: [callbackUri(port)],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        application_type: "native",
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };

    const verdict = await runAuthorizationConformance({
      issuer,
      clientId,
      port,
      signIn: (url) => signInWithChromium(url, { redirectUri: callbackUri(port) }),
    });
    expect(verdict.notPassed, verdict.output).toEqual([]);
    expect([...verdict.checks.keys()].sort()).toEqual([...AUTHORIZATION_SCENARIOS].sort());
    // The CIMD check (a WARNING when not advertised) is among the checks, and passed.
    expect(verdict.checks.get("authorization-server-metadata-endpoint")?.map((check) => check.id)).toEqual([
      "authorization-server-metadata",
      "authorization-server-metadata-cimd",
    ]);
    expect(verdict.code, verdict.output).toBe(0);
  });
});
