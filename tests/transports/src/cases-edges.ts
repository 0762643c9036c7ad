import { type Client, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, expect, it } from "vitest";
import { WAIT_MS } from "../../../scripts/wait.js";
import { LIMIT_BYTES } from "./fixture-server.js";
import { failsOnWire, firstText, type Peer, type SuiteContext } from "./peer.js";

/** Characters, size limits and hostile keys. */
export function edgeCases(ctx: SuiteContext): void {
  const { notFound, limits, target } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  it("takes arguments and names whatever their characters (over HTTP they are mirrored in headers)", async () => {
    for (const region of ["eu-west", "é-ünicode", "  padded  ", "line\nbreak", "__proto__", "=?base64?ZXU=?="]) {
      expect(firstText(await client.callTool({ name: "region", arguments: { region } }))).toBe(region);
    }
    await failsOnWire(peer, () => client.readResource({ uri: "fixture://items/ü" }, { cacheMode: "bypass" }), notFound);
  });

  it("carries line separators, newlines and emoji both ways", async () => {
    const tricky = "line\u2028separator\u2029paragraph\nnewline\r\n 😀🎉 \u0000 done";
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: tricky } }))).toBe(tricky);
  });

  it("counts the limit in bytes: a multi-byte argument under it in characters but over it in bytes is refused", async () => {
    const client = await limits();
    const near = "é".repeat((LIMIT_BYTES - 2048) / 2);
    const accepted = await client.callTool({ name: "size", arguments: { data: near } });
    expect(accepted.structuredContent).toEqual({ length: near.length });
    const over = "é".repeat(LIMIT_BYTES / 2 + 512);
    await expect(client.callTool({ name: "size", arguments: { data: over } }, { timeout: WAIT_MS })).rejects.toSatisfy(
      target.isOversizeError,
    );
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here");
  });

  it("takes an argument near the limit, refuses one over it, and answers the next call", async () => {
    const client = await limits();
    const near = "x".repeat(LIMIT_BYTES - 2048);
    const accepted = await client.callTool({ name: "size", arguments: { data: near } });
    expect(accepted.structuredContent).toEqual({ length: near.length });
    const over = client.callTool(
      { name: "size", arguments: { data: "x".repeat(LIMIT_BYTES + 1) } },
      { timeout: WAIT_MS },
    );
    await expect(over).rejects.toSatisfy(target.isOversizeError);
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here");
  });

  it("answers hostile keys (__proto__, constructor) cleanly", async () => {
    const keys = await client.callTool({
      name: "keys",
      arguments: { constructor: "__proto__", toString: "constructor" },
    });
    expect(keys.structuredContent).toEqual({ constructor: "__proto__", toString: "constructor" });
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "plain": 1}',
    );
    const inspected = await client.callTool({ name: "inspect", arguments: hostile });
    expect(inspected.isError).toBeFalsy();
    expect(inspected.structuredContent).toMatchObject({ prototypeIsObject: true, polluted: false });
    expect((inspected.structuredContent as { keys: string[] }).keys).toEqual(
      expect.arrayContaining(["constructor", "plain"]),
    );
    // What a __proto__ key holds is never taken for an argument.
    const smuggled = await client.callTool({ name: "echo", arguments: JSON.parse('{"__proto__": {"text": "x"}}') });
    expect(smuggled.isError).toBe(true);
    const greet = await client.getPrompt({ name: "greet", arguments: { name: "__proto__", style: "constructor" } });
    expect(greet.messages[0]?.content).toEqual({ type: "text", text: "Say a constructor hello to __proto__." });
    const smuggledStyle = await client.getPrompt({
      name: "greet",
      arguments: JSON.parse('{"name": "Ada", "__proto__": {"style": "formal"}}'),
    });
    expect(smuggledStyle.messages[0]?.content).toEqual({ type: "text", text: "Say a plain hello to Ada." });
    const smuggledContext = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "name", value: "" },
      context: { arguments: JSON.parse('{"__proto__": {"style": "formal"}}') },
    });
    expect(smuggledContext.completion.values).toEqual(["Ada", "Ben"]);
    for (const name of ["__proto__", "constructor", "toString"]) {
      await failsOnWire(peer, () => client.callTool({ name, arguments: {} }), ProtocolErrorCode.InvalidParams);
      await failsOnWire(peer, () => client.getPrompt({ name }), ProtocolErrorCode.InvalidParams);
      const uri = `fixture://items/${name}`;
      await failsOnWire(peer, () => client.readResource({ uri }, { cacheMode: "bypass" }), notFound);
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name, value: "" },
      });
      expect(completion.completion.values).toEqual([]);
    }
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "fine" } }))).toBe("fine");
  });
}
