import { AuthError } from "@toolsmith/transport-http";
import { describe, expect, it } from "vitest";
import { request } from "./idp.test-util.js";
import { protectedServer } from "./serve.test-util.js";
import { staticTokens } from "./static-tokens.js";

// staticTokens: a fixed table for development, refused on any host but loopback unless allowRemote says so.

const TOKENS = { "dev-token-ada": { subject: "ada", scopes: ["files:read"] }, "dev-token-bob": { subject: "bob" } };

describe("staticTokens", () => {
  it("a listed token names its principal; an unlisted one is 401; none is undefined", async () => {
    const verify = staticTokens({ tokens: TOKENS });
    expect(await verify(request("Bearer dev-token-ada"))).toEqual({
      subject: "ada",
      scopes: ["files:read"],
      claims: {},
    });
    expect(await verify(request("Bearer dev-token-bob", "localhost:3000"))).toMatchObject({
      subject: "bob",
      scopes: [],
    });
    await expect(verify(request("Bearer dev-token-ad"))).rejects.toBeInstanceOf(AuthError);
    await expect(verify(request("Bearer dev-token-ada2"))).rejects.toBeInstanceOf(AuthError);
    expect(await verify(request())).toBeUndefined();
  });

  it("a principal handed out is a copy: a handler changing it changes nothing for the next caller", async () => {
    const verify = staticTokens({ tokens: TOKENS });
    const first = (await verify(request("Bearer dev-token-ada"))) as unknown as { scopes: string[] };
    first.scopes.push("admin");
    expect((await verify(request("Bearer dev-token-ada")))?.scopes).toEqual(["files:read"]);
  });

  it("a request to a host that is not loopback throws, naming allowRemote; with allowRemote it is served", async () => {
    for (const host of ["mcp.example.com", "10.0.0.1:3000", "127.0.0.1.evil.example"]) {
      await expect(staticTokens({ tokens: TOKENS })(request("Bearer dev-token-ada", host))).rejects.toThrow(
        /allowRemote/,
      );
    }
    const remote = staticTokens({ tokens: TOKENS, allowRemote: true });
    expect(await remote(request("Bearer dev-token-ada", "mcp.example.com"))).toMatchObject({ subject: "ada" });
  });

  it("through the transport: 200 with the token, 401 invalid_token without the token told back", async () => {
    const served = protectedServer(staticTokens({ tokens: TOKENS }));
    expect((await served.ask("Bearer dev-token-ada")).status).toBe(200);
    const told = await served.ask("Bearer dev-token-zzz");
    expect(told.status).toBe(401);
    expect(told.body + told.challenge).not.toContain("dev-token");
  });

  it("a table with an empty token or a subjectless entry is refused when made", () => {
    expect(() => staticTokens({ tokens: { "": { subject: "a" } } })).toThrow(TypeError);
    expect(() => staticTokens({ tokens: { t: { subject: " " } } })).toThrow(TypeError);
    expect(() => staticTokens({ tokens: {} })).toThrow(TypeError);
  });
});
