import { type Client, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { BOARD_URI, OTHER_URI, PNG, WATCHED_URI } from "./fixture-server.js";
import { failsOnWire, type Peer, protocolError, type SuiteContext } from "./peer.js";

/** Resources, prompts, completions and pagination. */
export function resourceAndPromptCases(ctx: SuiteContext): void {
  const { notFound, another } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  describe("resources", () => {
    it("lists resources and templates", async () => {
      const { resources } = await client.listResources(undefined, { cacheMode: "bypass" });
      expect(resources.map((resource) => resource.uri).sort()).toEqual([
        BOARD_URI,
        "fixture://logo",
        OTHER_URI,
        "fixture://readme",
        WATCHED_URI,
      ]);
      const { resourceTemplates } = await client.listResourceTemplates(undefined, { cacheMode: "bypass" });
      expect(resourceTemplates).toEqual([
        expect.objectContaining({ uriTemplate: "fixture://items/{id}", name: "item", mimeType: "text/plain" }),
      ]);
    });

    it("reads text, a blob and a template", async () => {
      const readme = await client.readResource({ uri: "fixture://readme" }, { cacheMode: "bypass" });
      expect(readme.contents).toEqual([{ uri: "fixture://readme", mimeType: "text/plain", text: "Read me first." }]);
      const logo = await client.readResource({ uri: "fixture://logo" }, { cacheMode: "bypass" });
      expect(logo.contents).toEqual([{ uri: "fixture://logo", mimeType: "image/png", blob: PNG }]);
      const item = await client.readResource({ uri: "fixture://items/2" }, { cacheMode: "bypass" });
      expect(item.contents).toEqual([{ uri: "fixture://items/2", mimeType: "text/plain", text: "Item two" }]);
    });

    it(`answers a missing resource with ${notFound}`, async () => {
      for (const uri of ["fixture://items/999", "nothing://here"]) {
        await failsOnWire(peer, () => client.readResource({ uri }, { cacheMode: "bypass" }), notFound);
      }
    });
  });

  describe("prompts and completions", () => {
    it("lists and gets prompts, and refuses a missing argument", async () => {
      const { prompts } = await client.listPrompts(undefined, { cacheMode: "bypass" });
      expect(prompts.find((prompt) => prompt.name === "greet")?.arguments).toEqual([
        expect.objectContaining({ name: "name", required: true }),
        expect.objectContaining({ name: "style", required: false }),
      ]);
      const greet = await client.getPrompt({ name: "greet", arguments: { name: "Ada", style: "formal" } });
      expect(greet.messages).toEqual([{ role: "user", content: { type: "text", text: "Say a formal hello to Ada." } }]);
      const simple = await client.getPrompt({ name: "simple" });
      expect(simple.messages[0]?.content).toEqual({ type: "text", text: "Just say hi." });
      await expect(client.getPrompt({ name: "greet", arguments: {} })).rejects.toSatisfy(
        protocolError(ProtocolErrorCode.InvalidParams),
      );
    });

    it("completes prompt arguments (with context) and template variables", async () => {
      const style = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "style", value: "f" },
      });
      expect(style.completion.values).toEqual(["formal", "friendly", "funny"]);
      const name = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "name", value: "" },
        context: { arguments: { style: "formal" } },
      });
      expect(name.completion.values).toEqual(["Dr. Ada", "Dr. Ben"]);
      const id = await client.complete({
        ref: { type: "ref/resource", uri: "fixture://items/{id}" },
        argument: { name: "id", value: "1" },
      });
      expect(id.completion.values).toEqual(["1", "10"]);
    });
  });

  it("pages every list with cursors of pageSize 2, and refuses a forged cursor", async () => {
    const { client: paged } = await another({ fixture: "paged" });
    const first = await paged.request({ method: "tools/list", params: {} });
    expect(first.tools).toHaveLength(2);
    const walked = first.tools.map((tool) => tool.name);
    let cursor = first.nextCursor;
    for (let page = 0; cursor !== undefined && page < 50; page++) {
      const next = await paged.listTools({ cursor });
      expect(next.tools.length).toBeLessThanOrEqual(2);
      walked.push(...next.tools.map((tool) => tool.name));
      cursor = next.nextCursor;
    }
    expect(cursor).toBeUndefined();
    const all = (await paged.listTools(undefined, { cacheMode: "bypass" })).tools.map((tool) => tool.name);
    expect(walked).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(["echo", "add", "toggle", "inspect"]));
    const firstResources = await paged.request({ method: "resources/list", params: {} });
    expect(firstResources.resources).toHaveLength(2);
    expect(firstResources.nextCursor).toEqual(expect.any(String));
    expect((await paged.listResources(undefined, { cacheMode: "bypass" })).resources).toHaveLength(5);
    expect((await paged.listPrompts(undefined, { cacheMode: "bypass" })).prompts).toHaveLength(3);
    await expect(paged.listTools({ cursor: "eyJrIjoidG9vbHMiLCJvIjowfQ" })).rejects.toSatisfy(
      protocolError(ProtocolErrorCode.InvalidParams),
    );
  });
}
