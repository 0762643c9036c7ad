import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jwtVerifier, type Verifier } from "@toolsmith/auth";
import { createServer } from "@toolsmith/core";
import { type Idp, launchChromium, signInWithChromium, startIdp } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type RunningCli, startCli } from "../../../packages/cli/src/run-cli.test-util.js";

// `toolsmith list|call` (the built CLI, as a person runs it) against a server behind a real OpenID provider: the
// authorization URL read off its stderr, a person signing in with headless Chromium, the loopback redirect, then the
// kept tokens, a refresh, a step-up and logout.

let idp: Idp;
let server: HttpServer;
let browser: Browser;
let config: string;

beforeAll(async () => {
  config = mkdtempSync(join(tmpdir(), "toolsmith-cli-sign-in-"));
  browser = await launchChromium();
  idp = await startIdp({ scopes: ["notes:read", "notes:write"] });
  const mcp = createServer({ name: "notes-behind-an-idp", version: "1.0.0" });
  mcp.tool({
    name: "whoami",
    description: "Who the caller is, as the token says.",
    handler: (_input, ctx) => `${ctx.auth?.subject} holds ${ctx.auth?.scopes.join(" ")}`,
  });
  mcp.tool({
    name: "write",
    description: "Write a note (needs notes:write).",
    scopes: ["notes:write"],
    input: { text: z.string() },
    handler: ({ text }, ctx) => `${ctx.auth?.subject} wrote ${text}`,
  });
  let verify: Verifier = async () => undefined;
  server = await listen(mcp, {
    port: 0,
    log: null,
    authenticate: (request) => verify(request),
    resourceMetadata: { authorizationServers: [idp.issuer], scopesSupported: ["notes:read"] },
  });
  verify = jwtVerifier({ issuer: idp.issuer, audience: server.url });
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
  await browser?.close();
  rmSync(config, { recursive: true, force: true });
});

const env = () => ({ XDG_CONFIG_HOME: config });
const credentialFiles = () => readdirSync(join(config, "toolsmith", "credentials"));
const credentials = () =>
  JSON.parse(readFileSync(join(config, "toolsmith", "credentials", credentialFiles()[0] as string), "utf8")) as {
    resource: string;
    tokens: { access_token: string; refresh_token?: string; scope?: string };
    expiresAt?: number;
  };

/** A person signs in where `cli` says, in headless Chromium, and lands on its loopback receiver. */
async function signInFor(cli: RunningCli, from = 0): Promise<URL> {
  const [, url] = await cli.said(/^ {2}(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m, from);
  const landed = await signInWithChromium(url as string, { browser, login: "alice" });
  // Chromium's context closes on arrival: the same request again reaches the receiver if the browser's did not.
  await fetch(landed).catch(() => undefined);
  return new URL(url as string);
}

describe("toolsmith signs in to a server that asks", () => {
  it("prints the authorization URL on stderr, receives the redirect, then lists; the tokens kept 0600", async () => {
    const cli = startCli(["list", "--no-browser", server.url], env());
    const asked = await signInFor(cli);
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      resource: server.url,
      code_challenge_method: "S256",
      response_type: "code",
      redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/),
    });
    const { code, stdout, stderr } = await cli.ended();
    expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining("signed in to") });
    expect(stdout).toContain("whoami");
    expect(stdout).not.toContain("/auth?");
    const file = join(config, "toolsmith", "credentials", credentialFiles()[0] as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, "toolsmith")).mode & 0o777).toBe(0o700);
    const kept = credentials();
    expect(kept.resource).toBe(server.url);
    expect(kept.tokens.refresh_token).toEqual(expect.any(String));
    expect(stdout + stderr).not.toContain(kept.tokens.access_token);
    expect(stdout + stderr).not.toContain(kept.tokens.refresh_token);
  });

  it("uses the kept tokens on the next run, with no browser", async () => {
    const { code, stdout, stderr } = await startCli(["call", "--no-browser", server.url, "whoami"], env()).ended();
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("alice holds notes:read");
  });

  it("refreshes an expired access token without a browser", async () => {
    const before = credentials();
    writeFileSync(
      join(config, "toolsmith", "credentials", credentialFiles()[0] as string),
      JSON.stringify({ ...before, expiresAt: 0 }),
    );
    const { code, stdout, stderr } = await startCli(["call", "--no-browser", server.url, "whoami"], env()).ended();
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("alice holds notes:read");
    const after = credentials();
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
  });

  it("steps up when a tool needs a scope the token lacks: 403, a new sign-in, the call made", async () => {
    const cli = startCli(["call", "--no-browser", server.url, "write", "text=milk"], env());
    const asked = await signInFor(cli);
    expect(asked.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["notes:read", "notes:write"]));
    const { code, stdout, stderr } = await cli.ended();
    expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining("signed in to") });
    expect(stdout).toContain("alice wrote milk");
    expect(credentials().tokens.scope?.split(" ")).toContain("notes:write");
  });

  it("forgets the server on logout, and asks again after", async () => {
    const out = await startCli(["logout", server.url], env()).ended();
    expect(out).toMatchObject({ code: 0, stderr: `signed out of ${server.url}\n` });
    expect(credentialFiles()).toEqual([]);
    const cli = startCli(["list", "--no-browser", "--sign-in-timeout", "600000", server.url], env());
    await cli.said(/asks you to sign in/);
    cli.child.kill("SIGINT");
    await cli.ended();
  });
});
