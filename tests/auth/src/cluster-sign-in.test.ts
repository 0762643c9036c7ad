import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { type RoundRobinProxy, startProxy } from "@toolsmith/example-cluster-proxy";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { type Idp, launchChromium, signInWithChromium } from "@toolsmith/tests-idp";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerProxy, UPSTREAM_CLIENT, upstreamIdp } from "../../../packages/auth/src/proxy/proxy.test-util.js";
import { end, exited } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { freePort } from "./conformance-authorization.test-util.js";
import { everythingInRedis, type HttpsDocument, SignIn, serveHttpsDocument } from "./proxy-sign-in.test-util.js";

// One server as three processes (tests/auth/test/cluster-server.mjs: the same secret, the same Redis, the one public
// origin) behind examples/cluster-proxy, round robin, sending the clients' Host on. The official client signs a
// person in through oauthProxy in front of a real OpenID provider, each leg on a process of the test's choosing (the
// others drained from the proxy's rotation): discovery and the consent on process 0, which is killed (SIGKILL) while
// the person is at the upstream; the upstream's callback on process 1; the code redeemed and the token used on
// process 2. Then every key and value in Redis is read: no token, code or secret is there in clear.

const SCRIPT = fileURLToPath(new URL("../test/cluster-server.mjs", import.meta.url));
const SECRET = randomBytes(48).toString("base64url");
// A JWS in clear (header.payload.signature, both JSON): an ID token, or a JWT access token. A JWE's second part is
// a wrapped key, not JSON, so sealed records do not match.
const CLEAR_JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;

type Mode = "legacy" | { pin: "2026-07-28" };

let redis: RedisServer;
let idp: Idp;
let browser: Browser;
let document: HttpsDocument;
let proxy: RoundRobinProxy;
let origin = "";
let env: NodeJS.ProcessEnv = {};
const processes: SpawnedHttp[] = [];
/** What each flow left to look for in Redis. */
const secrets: { what: string; value: string }[] = [
  { what: "the proxy's secret", value: SECRET },
  { what: "the upstream client secret", value: UPSTREAM_CLIENT.secret },
];

beforeAll(async () => {
  browser = await launchChromium();
  redis = await startRedis({ appendonly: false });
  idp = await upstreamIdp();
  // The client's metadata document (CIMD), on https: the official client takes no other URL as its client_id.
  document = await serveHttpsDocument((url) => ({ client_id: url, ...new SignIn().clientMetadata }));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  await registerProxy(idp, [origin]);
  env = {
    ...process.env,
    PORT: "0",
    REDIS_URL: redis.url,
    SECRET,
    STATE_KEY: randomBytes(32).toString("base64url"),
    ISSUER: origin,
    UPSTREAM_ISSUER: idp.issuer,
    UPSTREAM_CLIENT_ID: UPSTREAM_CLIENT.id,
    UPSTREAM_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
    NODE_EXTRA_CA_CERTS: document.caFile,
  };
  for (let index = 0; index < 3; index++) processes.push(await spawnHttp([SCRIPT], { env }));
  proxy = await startProxy({
    backends: processes.map((spawned) => spawned.url),
    port,
    keepHost: true,
    healthIntervalMs: 50,
  });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all(processes.map((spawned) => end(spawned.child)));
  await redis?.stop();
  await idp?.close();
  await document?.close();
  await browser?.close();
});

/** Only process `index` in the proxy's rotation: the requests from now on go to it. */
function only(index: number): number {
  for (let each = 0; each < processes.length; each++) proxy.rotate(each, each === index);
  return proxy.routed.length;
}

/** The processes that served the requests from `from` to `to` of the proxy's record. */
function servedBy(from: number, to = proxy.routed.length): Set<number> {
  return new Set(proxy.routed.slice(from, to).map((routed) => routed.backend));
}

/**
 * The browser, for the sign-in: `leaving` is called once, when the person's browser first asks for a page of the
 * upstream (our consent was approved, its redirect answered).
 */
function browserLeavingFor(upstream: string, leaving: () => void): Browser {
  let told = false;
  const watched = Object.create(browser) as Browser;
  watched.newContext = async (...args: Parameters<Browser["newContext"]>): Promise<BrowserContext> => {
    const context = await browser.newContext(...args);
    context.on("request", (request) => {
      if (!told && new URL(request.url()).origin === upstream) {
        told = true;
        leaving();
      }
    });
    return context;
  };
  return watched;
}

/** A client that registers (RFC 7591) with a secret for the token endpoint. */
class ConfidentialSignIn extends SignIn {
  override get clientMetadata() {
    return { ...super.clientMetadata, token_endpoint_auth_method: "client_secret_basic" };
  }
}

function clientOf(mode: Mode, provider: SignIn) {
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url), { authProvider: provider });
  const client = new Client({ name: "cluster-sign-in", version: "1.0.0" }, { versionNegotiation: { mode } });
  return { client, transport };
}

const FLOWS: [string, Mode, "metadata document" | "registration", string, number][] = [
  ["a client metadata document, 2025-11-25 handshake", "legacy", "metadata document", "erin", 0],
  ["a confidential client registered (RFC 7591), 2026-07-28", { pin: "2026-07-28" }, "registration", "frank", 1],
];

describe.each(FLOWS)("a sign-in across three processes on Redis, %s", (_name, mode, registration, login, killed) => {
  it("starts on one process, comes back from the upstream to another, and the token is used on the third", async () => {
    const [start, callback, use] = [killed, (killed + 1) % 3, (killed + 2) % 3];
    const provider = registration === "metadata document" ? new SignIn(document.url) : new ConfidentialSignIn();

    // Leg 1, process `start`: 401, discovery, (registration), our consent page approved.
    const legStart = only(start);
    const first = clientOf(mode, provider);
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.client.close();
    const asked = provider.lastAuthorizationUrl;
    expect(asked.origin).toBe(origin);
    if (registration === "metadata document") expect(asked.searchParams.get("client_id")).toBe(document.url);
    else expect(provider.client?.client_secret).toEqual(expect.any(String));

    // Leg 2, process `callback`: the person is at the upstream; process `start` dies, the callback goes elsewhere.
    let legCallback = 0;
    let death: Promise<unknown> = Promise.resolve();
    const person = browserLeavingFor(idp.issuer, () => {
      legCallback = only(callback);
      const dying = processes[start] as SpawnedHttp;
      death = exited(dying.child, `process ${start} to die of SIGKILL`);
      dying.child.kill("SIGKILL");
    });
    const landed = new URL(await signInWithChromium(asked.href, { login, browser: person }));
    await death;
    expect(landed.searchParams.get("error")).toBeNull();
    expect(landed.searchParams.get("iss")).toBe(origin);

    // Leg 3, process `use`: the code redeemed, then calls.
    const legUse = only(use);
    await first.transport.finishAuth(landed.searchParams);
    const second = clientOf(mode, provider);
    try {
      await second.client.connect(second.transport);
      const result = await second.client.callTool({ name: "whoami", arguments: {} });
      expect(result.structuredContent).toEqual({
        subject: login,
        clientId: registration === "metadata document" ? document.url : provider.client?.client_id,
        pid: processes[use]?.child.pid,
        upstream: true,
      });
    } finally {
      await second.client.close();
    }

    // Each leg was served by its process alone, and by no other.
    expect(servedBy(legStart, legCallback)).toEqual(new Set([start]));
    expect(servedBy(legCallback, legUse)).toEqual(new Set([callback]));
    expect(servedBy(legUse)).toEqual(new Set([use]));
    expect(legCallback - legStart).toBeGreaterThanOrEqual(4);
    expect(legUse - legCallback).toBeGreaterThanOrEqual(1);

    secrets.push(
      { what: "the access token", value: provider.saved?.access_token ?? "missing" },
      { what: "the refresh token", value: provider.saved?.refresh_token ?? "missing" },
      { what: "the authorization code", value: landed.searchParams.get("code") ?? "missing" },
    );
    const clientSecret = provider.client?.client_secret;
    if (clientSecret !== undefined) secrets.push({ what: "the client secret", value: clientSecret });
    const spied = /test spy: upstream token (\S+)/.exec(processes[use]?.stderr() ?? "")?.[1];
    secrets.push({ what: "the upstream's access token", value: spied ?? "missing" });

    // The process killed comes back (on a new port), for the next flow.
    const restarted = await spawnHttp([SCRIPT], { env });
    processes[start] = restarted;
    proxy.replace(start, restarted.url);
  });
});

it("keeps nothing in clear in Redis: no token, code, upstream token or secret, in any key or value", async () => {
  const stored = await everythingInRedis(redis.url);
  expect(stored.size).toBeGreaterThan(0);
  const text = [...stored].map(([key, value]) => `${key}\n${value}`).join("\n");
  for (const { what, value } of secrets) {
    expect(value.length, what).toBeGreaterThan(8);
    expect(text.includes(value), `${what} is in Redis in clear`).toBe(false);
  }
  expect(CLEAR_JWT.test(text), "a JWT is in Redis in clear").toBe(false);
  expect(idp.serverErrors).toEqual([]);
});
