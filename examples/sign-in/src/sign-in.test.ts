import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { BrowserSignIn, launchChromium } from "@toolsmith/tests-idp";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";

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
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  server = await spawnHttp([main, "--dev"]);
});

afterAll(async () => {
  if (server) await end(server.child);
  await browser?.close();
});

function clientOf(mode: Mode, provider: BrowserSignIn) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
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
