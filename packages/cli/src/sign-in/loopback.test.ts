import { afterEach, describe, expect, it } from "vitest";
import { type LoopbackReceiver, SignInFailed, startLoopbackReceiver } from "./loopback.js";

const open: LoopbackReceiver[] = [];
async function receiver(port = 0): Promise<LoopbackReceiver> {
  const started = await startLoopbackReceiver(port);
  open.push(started);
  return started;
}
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

const MINUTES = 10 * 60_000;

describe("the loopback receiver", () => {
  it("listens on 127.0.0.1 at a free port and names the exact redirect URI", async () => {
    const r = await receiver();
    expect(r.port).toBeGreaterThan(0);
    expect(r.redirectUrl).toBe(`http://127.0.0.1:${r.port}/callback`);
  });

  it("takes the first answer to the callback carrying the state sent, then closes", async () => {
    const r = await receiver();
    r.expect("s1");
    const waiting = r.wait(MINUTES);
    const page = await fetch(`${r.redirectUrl}?code=c1&state=s1&iss=https%3A%2F%2Fidp`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain("Signed in");
    const query = await waiting;
    expect(query.get("code")).toBe("c1");
    expect(query.get("iss")).toBe("https://idp");
    await expect(fetch(`${r.redirectUrl}?code=c2&state=s1`)).rejects.toThrow();
  });

  it("takes an answer that came before the wait", async () => {
    const r = await receiver();
    r.expect("s1");
    await fetch(`${r.redirectUrl}?code=c1&state=s1`);
    expect((await r.wait(MINUTES)).get("code")).toBe("c1");
  });

  it("refuses an answer with another state, or none, and ends the sign-in", async () => {
    for (const query of ["?code=c1&state=forged", "?code=c1"]) {
      const r = await receiver();
      r.expect("s1");
      const waiting = r.wait(MINUTES).catch((error: unknown) => error);
      const page = await fetch(`${r.redirectUrl}${query}`);
      expect(page.status).toBe(400);
      expect(await waiting).toBeInstanceOf(SignInFailed);
      expect(String(await waiting)).toMatch(/did not carry the state/);
      await expect(fetch(`${r.redirectUrl}?code=c1&state=s1`)).rejects.toThrow();
    }
  });

  it("answers other paths and methods 404 without ending the wait", async () => {
    const r = await receiver();
    r.expect("s1");
    const waiting = r.wait(MINUTES);
    expect((await fetch(`http://127.0.0.1:${r.port}/favicon.ico`)).status).toBe(404);
    expect((await fetch(`${r.redirectUrl}?state=s1&code=x`, { method: "POST" })).status).toBe(404);
    await fetch(`${r.redirectUrl}?code=c1&state=s1`);
    expect((await waiting).get("code")).toBe("c1");
  });

  it("passes an authorization server's refusal on (the transport reads it) and tells the browser", async () => {
    const r = await receiver();
    r.expect("s1");
    const waiting = r.wait(MINUTES);
    const page = await fetch(`${r.redirectUrl}?error=access_denied&state=s1`);
    expect(await page.text()).toContain("Sign-in refused");
    expect((await waiting).get("error")).toBe("access_denied");
  });

  it("gives up after its time-out with a message that says what to do, and on close", async () => {
    const r = await receiver();
    r.expect("s1");
    const error = await r.wait(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignInFailed);
    expect((error as Error).message).toMatch(/no sign-in came back within .* run the command again/);
    const other = await receiver();
    const stopped = other.wait(MINUTES);
    await other.close();
    await expect(stopped).rejects.toThrow(/stopped/);
  });

  it("listens on a port asked for, and fails when it is taken", async () => {
    const first = await receiver();
    await expect(startLoopbackReceiver(first.port)).rejects.toThrow(/EADDRINUSE/);
    const port = first.port;
    await first.close();
    expect((await receiver(port)).port).toBe(port);
  });
});
