import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type LogEntry } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SigningKey, signingKey, startIdp, type TestIdp, token } from "./idp.test-util.js";
import { jwtVerifier, type Verifier } from "./jwt-verifier.js";

// jwtVerifier as listen's authenticate hook, driven by the official client with a static bearer in both eras: a good
// token reaches ctx.auth, a bad one is refused before any session, the provider down is 503, and no token reaches
// the server's log.

let idp: TestIdp;
let key: SigningKey;
let http: HttpServer;
const logged: LogEntry[] = [];
let verify: Verifier;

beforeAll(async () => {
  idp = await startIdp();
  key = await signingKey("k1");
  idp.keys = [key];
  const server = createServer({ name: "protected", version: "1", logger: (entry) => logged.push(entry) });
  server.tool({
    name: "whoami",
    description: "The caller",
    handler: (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes.join(",")} ${JSON.stringify(ctx.auth)}`,
  });
  // The audience is the endpoint's URL, known once listening.
  // As `authenticate: jwtVerifier(...)` is: the token checked from the Authorization header alone, a remembered one
  // answered at once.
  const authenticate = Object.assign((request: Request) => verify(request), {
    fromAuthorization: (authorization: string | null) =>
      (verify.fromAuthorization as NonNullable<Verifier["fromAuthorization"]>)(authorization),
  });
  http = await listen(server, { port: 0, log: null, authenticate });
  verify = jwtVerifier({ issuer: idp.issuer, audience: http.url, requiredScopes: ["mcp:use"] });
});
afterAll(async () => {
  await http.close();
  await idp.close();
});

async function connect(bearer: string, mode: "legacy" | { pin: "2026-07-28" }): Promise<Client> {
  const client = new Client({ name: "verify", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: bearer } } }),
  );
  return client;
}

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("jwtVerifier over HTTP with the official client (%s)", (_era, mode) => {
  it("a good token reaches ctx.auth without the token; a forged, expired or foreign one is refused", async () => {
    const good = await token(key, idp.issuer, { aud: http.url, scope: "mcp:use files:read" });
    const client = await connect(`Bearer ${good}`, mode);
    try {
      // The first call verifies the token; the second finds it remembered.
      for (let call = 0; call < 2; call++) {
        const result = await client.callTool({ name: "whoami", arguments: {} });
        const text = (result.content as { text: string }[])[0]?.text ?? "";
        expect(text).toMatch(/^alice mcp:use,files:read \{/);
        expect(text).not.toContain(good.split(".")[2]);
      }
    } finally {
      await client.close();
    }
    const other = await signingKey("k1");
    for (const bad of [
      await token(other, idp.issuer, { aud: http.url, scope: "mcp:use" }),
      await token(key, idp.issuer, { aud: http.url, scope: "mcp:use", exp: Math.floor(Date.now() / 1000) - 3600 }),
      await token(key, idp.issuer, { scope: "mcp:use" }),
    ]) {
      await expect(connect(`Bearer ${bad}`, mode)).rejects.toThrow(/401|Unauthorized/);
    }
    const lacking = await token(key, idp.issuer, { aud: http.url, scope: "files:read" });
    await expect(connect(`Bearer ${lacking}`, mode)).rejects.toThrow(/Insufficient scope/);
    expect(JSON.stringify(logged)).not.toContain(good.split(".")[2]);
  });
});

it("over the wire: each refusal's status and challenge; the provider down is 503 Retry-After; the log has no token", async () => {
  const ask = async (bearer: string) => {
    const response = await fetch(http.url, {
      method: "POST",
      headers: {
        authorization: bearer,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    return {
      status: response.status,
      challenge: response.headers.get("www-authenticate"),
      body: await response.text(),
    };
  };
  const expired = await token(key, idp.issuer, { aud: http.url, exp: Math.floor(Date.now() / 1000) - 3600 });
  const told = await ask(`Bearer ${expired}`);
  expect(told.status).toBe(401);
  expect(told.challenge).toMatch(
    /^Bearer error="invalid_token", error_description="Unauthorized: the access token expired"$/,
  );
  expect(told.body).not.toContain(expired.split(".")[1]);
  const lacking = await ask(`Bearer ${await token(key, idp.issuer, { aud: http.url, scope: "x" })}`);
  expect(lacking.status).toBe(403);
  // The scope parameter is what a client steps up with (RFC 6750 §3, SEP-2350): every scope required.
  expect(lacking.challenge).toBe(
    'Bearer scope="mcp:use", error="insufficient_scope", error_description="Forbidden: the access token lacks the scope mcp:use"',
  );

  // A fresh verifier (no keys yet) while the provider is down.
  verify = jwtVerifier({ issuer: idp.issuer, audience: http.url });
  idp.mode = "drop";
  const good = await token(key, idp.issuer, { aud: http.url });
  const down = await fetch(http.url, {
    method: "POST",
    headers: { authorization: `Bearer ${good}`, "content-type": "application/json", accept: "application/json" },
    body: "{}",
  });
  expect(down.status).toBe(503);
  expect(down.headers.get("retry-after")).toBe("5");
  expect(await down.text()).not.toContain(good.split(".")[2]);
  expect(logged.some((entry) => entry.level === "warning" && /could not be reached/.test(entry.message))).toBe(true);
  expect(JSON.stringify(logged)).not.toContain(good.split(".")[2]);
  expect(JSON.stringify(logged)).not.toContain(expired.split(".")[2]);
  idp.mode = "up";
});
