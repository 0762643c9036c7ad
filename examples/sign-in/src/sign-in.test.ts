import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { BrowserSignIn, type Idp, launchChromium, startIdp } from "@toolsmith/tests-idp";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { SCOPES } from "./notes.js";

// Build first (npx -y pnpm@12.4.2 run build). The README's command, `pnpm start` (node dist/main.js --dev): the server,
// its OAuth proxy and a local OpenID provider as the upstream, in one process; the official client signs a person in
// through headless Chromium: the proxy's consent page, then the provider's login and consent pages.
const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));

type Mode = "legacy" | { pin: "2026-07-28" };
// One person per era: notes are kept per person, in the one server both eras reach.
const ERAS: [string, Mode, string][] = [
  ["2025-11-25 handshake", "legacy", "carol"],
  ["2026-07-28", { pin: "2026-07-28" }, "dave"],
];

let server: SpawnedHttp;
// Set-up 1 (SIGN_IN=verify), in front of a provider this test starts.
let verifying: SpawnedHttp;
let idp: Idp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  server = await spawnHttp([main, "--dev"]);
  idp = await startIdp({ scopes: SCOPES });
  verifying = await spawnHttp([main], { env: { ...process.env, PORT: "0", SIGN_IN: "verify", ISSUER: idp.issuer } });
});

afterAll(async () => {
  if (server) await end(server.child);
  if (verifying) await end(verifying.child);
  await idp?.close();
  await browser?.close();
});

function clientOf(mode: Mode, provider: BrowserSignIn, url = server.url) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: "sign-in-example-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  return { client, transport, provider };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })).structuredContent;
}

describe.each(ERAS)("examples/sign-in in development, with the official client (%s)", (_era, mode, person) => {
  it("signs a person in through its proxy and the upstream; the tools know them; writing steps up", async () => {
    expect(server.stderr()).toMatch(
      /sign-in through this server \(OAuth proxy\) at the local provider at http:\/\/127/,
    );
    const provider = new BrowserSignIn();
    const first = clientOf(mode, provider);
    await expect(first.client.connect(first.transport).then(() => first.client.listTools())).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.client.close();
    // The authorization server is this server (its proxy), not the upstream.
    expect(provider.lastAuthorizationUrl.origin).toBe(new URL(server.url).origin);
    await provider.completeIn(first.transport, { login: person, browser });

    const signedIn = clientOf(mode, provider);
    try {
      await signedIn.client.connect(signedIn.transport);
      expect(await call(signedIn.client, "whoami")).toEqual({ subject: person, scopes: ["notes:read"] });
      // The proxy's tokens are for this server; the upstream's stay on it, and a tool calls the upstream with them.
      expect(signedIn.provider.saved?.access_token).toBeDefined();
      expect(await call(signedIn.client, "whoami_upstream")).toMatchObject({ profile: { sub: person } });
      // add_note needs notes:write: 403, and the client asks the person for it.
      await expect(call(signedIn.client, "add_note", { text: "buy milk" })).rejects.toBeInstanceOf(UnauthorizedError);
      await provider.completeIn(signedIn.transport, { login: person, browser });
      expect(await call(signedIn.client, "add_note", { text: "buy milk" })).toEqual({ count: 1 });
      expect(await call(signedIn.client, "list_notes")).toEqual({ notes: ["buy milk"] });
    } finally {
      await signedIn.client.close();
    }
  });
});

describe("examples/sign-in with SIGN_IN=verify, in front of a provider that issues its tokens", () => {
  it("sends the client to that provider; the token it issues for this server is verified", async () => {
    expect(verifying.stderr()).toContain(`sign-in verifying tokens ${idp.issuer} issues`);
    const provider = new BrowserSignIn();
    const first = clientOf("legacy", provider, verifying.url);
    await expect(first.client.connect(first.transport).then(() => first.client.listTools())).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.client.close();
    expect(provider.lastAuthorizationUrl.origin).toBe(idp.issuer);
    await provider.completeIn(first.transport, { login: "erin", browser });
    const signedIn = clientOf("legacy", provider, verifying.url);
    try {
      await signedIn.client.connect(signedIn.transport);
      expect(await call(signedIn.client, "whoami")).toEqual({ subject: "erin", scopes: ["notes:read"] });
      // No proxy, so no upstream token and no whoami_upstream.
      expect((await signedIn.client.listTools()).tools.map((tool) => tool.name)).not.toContain("whoami_upstream");
    } finally {
      await signedIn.client.close();
    }
  });
});
