import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { type Idp, signInWithChromium, startIdp } from "@toolsmith/tests-idp";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  consentForm,
  cookieOf,
  idpUpstream,
  type Proxied,
  pkce,
  registerProxy,
  SECRET,
  send,
  startProxied,
  UPSTREAM_CLIENT,
} from "./proxy.test-util.js";

// The proxy as two processes on one real redis-server behind a load balancer (the same Host on both): a sign-in
// started on one finishes on the other, each step on either, and then nothing secret is in Redis in clear.

const HOST = "mcp.test";
const ORIGIN = `http://${HOST}`;
const REDIRECT = "http://127.0.0.1:9/callback";
let redis: RedisServer;
let idp: Idp;
const processes: Proxied[] = [];

beforeAll(async () => {
  redis = await startRedis();
  idp = await startIdpFor();
  for (let i = 0; i < 2; i++) {
    const engine = createRedisEngine({ url: redis.url, namespace: "proxied" });
    const proxied = await startProxied({ upstream: idpUpstream(idp), engine, issuer: ORIGIN, allowedHosts: [HOST] });
    // A tool that gives the test the upstream's token, so the test can look for it in Redis.
    proxied.server.tool({
      name: "upstream-token",
      description: "The upstream's token (for this test only)",
      handler: (_args, ctx) => proxied.auth.upstreamToken(ctx),
    });
    processes.push(proxied);
  }
}, 120_000);

async function startIdpFor() {
  const started = await startIdp({ scopes: ["openid", "profile"] });
  await registerProxy(started, [ORIGIN]);
  return started;
}

afterAll(async () => {
  for (const proxied of processes) {
    await proxied.http.close();
    await proxied.server.engine.close();
  }
  await idp?.close();
  await redis?.stop();
});

/** Process `i` behind the load balancer: its requests carry the balancer's Host. */
function processAt(i: number) {
  return {
    send(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
      const proxied = processes[i];
      if (proxied === undefined) throw new Error("not started");
      return send(proxied.port, HOST, method, path, headers, body);
    },
  };
}
const A = processAt(0);
const B = processAt(1);

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const MCP = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The JSON-RPC message in an answer (JSON, or the data of an SSE event). */
function message(body: string): { result?: { content?: { text: string }[] } } {
  const data = body.startsWith("{") ? body : (body.match(/^data: (.*)$/m)?.[1] ?? "{}");
  return JSON.parse(data);
}

it("completes a sign-in across two processes, and Redis holds no token, code or secret in clear", async () => {
  const registered = await A.send(
    "POST",
    "/register",
    { "content-type": "application/json" },
    JSON.stringify({
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      client_name: "across",
    }),
  );
  expect(registered.status).toBe(201);
  const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;
  const { verifier, challenge, state } = await pkce();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    resource: `${ORIGIN}/mcp`,
  });
  // The consent page from A, answered on B.
  const shown = await A.send("GET", `/authorize?${query}`);
  expect(shown.status).toBe(200);
  const cookie = cookieOf(shown.headers["set-cookie"]);
  const form = consentForm(shown.body);
  const approved = await B.send(
    "POST",
    "/authorize",
    { ...FORM, cookie, origin: ORIGIN },
    new URLSearchParams({ ...form, decision: "approve" }).toString(),
  );
  expect(approved.status).toBe(303);
  const upstream = String(approved.headers.location);
  // The person signs in at the provider; the browser is sent to our callback (the load balancer's name).
  const callback = new URL(await signInWithChromium(upstream, { redirectUri: `${ORIGIN}/oauth/callback` }));
  const back = await A.send("GET", `${callback.pathname}${callback.search}`, { cookie });
  expect(back.status).toBe(303);
  const returned = new URL(String(back.headers.location)).searchParams;
  expect([returned.get("state"), returned.get("iss")]).toEqual([state, ORIGIN]);
  const code = returned.get("code") ?? "";
  const exchanged = await B.send(
    "POST",
    "/token",
    FORM,
    new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    }).toString(),
  );
  expect(exchanged.status).toBe(200);
  const tokens = JSON.parse(exchanged.body) as { access_token: string; refresh_token: string };
  // The token from B's exchange is good on A, in a session A opens and B serves.
  const bearer = { ...MCP, authorization: `Bearer ${tokens.access_token}` };
  const init = await A.send(
    "POST",
    "/mcp",
    bearer,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  expect(init.status).toBe(200);
  const session = {
    ...bearer,
    "mcp-session-id": String(init.headers["mcp-session-id"]),
    "mcp-protocol-version": "2025-06-18",
  };
  await B.send("POST", "/mcp", session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const call = (id: number, name: string) =>
    B.send(
      "POST",
      "/mcp",
      session,
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }),
    );
  const who = JSON.parse(message((await call(2, "whoami")).body).result?.content?.[0]?.text ?? "{}");
  expect(who).toMatchObject({ subject: "alice" });
  const upstreamToken = message((await call(3, "upstream-token")).body).result?.content?.[0]?.text ?? "";
  expect(upstreamToken.length).toBeGreaterThan(10);
  // A refresh on A rotates what B issued.
  const refreshed = await A.send(
    "POST",
    "/token",
    FORM,
    new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    }).toString(),
  );
  expect(refreshed.status).toBe(200);
  const rotated = JSON.parse(refreshed.body) as { access_token: string; refresh_token: string };

  // Every key and value in Redis, read raw.
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const dump: string[] = [];
    for (const key of await client.keys("*")) {
      dump.push(key);
      const type = await client.type(key);
      if (type === "string") dump.push((await client.get(key)) ?? "");
      else if (type === "hash") dump.push(JSON.stringify(await client.hgetall(key)));
      else if (type === "list") dump.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === "set") dump.push(JSON.stringify(await client.smembers(key)));
      else if (type === "zset") dump.push(JSON.stringify(await client.zrange(key, "0", "-1")));
      else if (type === "stream") dump.push(JSON.stringify(await client.xrange(key, "-", "+")));
    }
    const everything = dump.join("\n");
    // The records are there, read whole: sealed (compact JWE, "dir": no encrypted key) under HMAC names.
    expect(everything).toContain("auth:grant:");
    expect(everything).toMatch(/eyJ[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+/);
    const secrets = {
      code,
      verifier,
      challenge,
      cookie: cookie.split("=")[1] ?? "",
      upstreamState: new URL(upstream).searchParams.get("state") ?? "",
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      rotatedAccess: rotated.access_token,
      rotatedRefresh: rotated.refresh_token,
      upstreamToken,
      upstreamCode: callback.searchParams.get("code") ?? "",
      secret: SECRET,
      upstreamSecret: UPSTREAM_CLIENT.secret,
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThan(10);
      expect(everything.includes(value), `${name} is in Redis in clear`).toBe(false);
    }
  } finally {
    client.disconnect();
  }
}, 180_000);
