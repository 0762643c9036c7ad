import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
// From source: @toolsmith/vitest lowers its TC39 decorators (vitest.config.ts).
import { Notes } from "./notes.js";

// notes://tags as the pairs [tag, ids] in the order the server wrote them (the tags' order in the store: code points).
async function tagsOf(client: TestClient): Promise<[string, string[]][]> {
  const [contents] = (await client.readResource("notes://tags")).contents;
  return Object.entries(JSON.parse(contents && "text" in contents ? contents.text : "") as Record<string, string[]>);
}

// The recommended way to test a server class: no transport, no process, both eras.
describe.each(["2025-11-25", "2026-07-28"] as const)("Notes, in memory (%s)", (protocolVersion) => {
  it("adds, finds and removes notes", async () => {
    const client = await createTestClient(new Notes(), { protocolVersion });
    expect(
      (await client.callTool("add", { title: "Milk", body: "2 litres", tags: ["errands"] })).structuredContent,
    ).toEqual({
      id: "1",
      count: 1,
    });
    expect((await client.callTool("search", { query: "MILK" })).structuredContent).toEqual({
      matches: [{ id: "1", title: "Milk" }],
    });
    expect(await client.callTool("remove", { id: "1" })).toMatchObject({ content: [{ text: "Deleted note 1" }] });
    expect(await client.callTool("remove", { id: "1" })).toMatchObject({ isError: true });
  });

  it("reads its resources", async () => {
    const client = await createTestClient(new Notes([{ title: "Milk", body: "2 litres", tags: ["errands"] }]), {
      protocolVersion,
    });
    expect((await client.listResources()).map((r) => r.uri)).toEqual(["notes://all", "notes://tags", "notes://1"]);
    expect((await client.readResource("notes://all")).contents[0]).toMatchObject({ text: "1: Milk" });
    expect((await client.readResource("notes://tags")).contents[0]).toMatchObject({
      mimeType: "application/json",
      text: '{"errands":["1"]}',
    });
    const [one] = (await client.readResource("notes://1")).contents;
    expect(JSON.parse(one && "text" in one ? one.text : "")).toMatchObject({ title: "Milk" });
    await expect(client.readResource("notes://2")).rejects.toMatchObject({ data: { uri: "notes://2" } });
  });

  it("gets its prompts", async () => {
    const client = await createTestClient(new Notes([{ title: "Milk", body: "2 litres", tags: [] }]), {
      protocolVersion,
    });
    const summary = await client.getPrompt("summarise", { topic: "shopping", style: "detailed" });
    expect(summary.messages[0]?.content).toEqual({
      type: "text",
      text: "Give a detailed summary of my notes about shopping:\n- Milk: 2 litres",
    });
    const review = await client.getPrompt("review", { id: "1" });
    expect(review.messages[1]?.content).toMatchObject({ type: "resource", resource: { uri: "notes://1" } });
    await expect(client.getPrompt("review", { id: "9" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt("summarise", { style: "loud" })).rejects.toMatchObject({ code: -32602 });
  });

  it("keeps each instance's notes apart", async () => {
    const a = await createTestClient(new Notes(), { protocolVersion });
    const b = await createTestClient(new Notes(), { protocolVersion });
    await a.callTool("add", { title: "only a", body: "" });
    expect((await b.callTool("search", { query: "only" })).structuredContent).toEqual({ matches: [] });
  });

  it("reads back tags named like Object.prototype members or like result fields", async () => {
    const client = await createTestClient(new Notes(), { protocolVersion });
    const odd = ["constructor", "toString", "__proto__", "hasOwnProperty", "contents", "text"];
    await client.callTool("add", { title: "Odd", body: "", tags: odd });
    await client.callTool("add", { title: "Plain", body: "", tags: ["toString", "plain"] });
    expect(await tagsOf(client)).toEqual([
      ["__proto__", ["1"]],
      ["constructor", ["1"]],
      ["contents", ["1"]],
      ["hasOwnProperty", ["1"]],
      ["plain", ["2"]],
      ["text", ["1"]],
      ["toString", ["1", "2"]],
    ]);
    await client.callTool("remove", { id: "1" });
    expect(await tagsOf(client)).toEqual([
      ["plain", ["2"]],
      ["toString", ["2"]],
    ]);
  });

  it("accepts a note at the limits and rejects one over them as a validation result", async () => {
    const client = await createTestClient(new Notes(), { protocolVersion });
    const fits = {
      title: "t".repeat(200),
      body: "b".repeat(100_000),
      tags: Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(64, "x")),
    };
    expect((await client.callTool("add", fits)).structuredContent).toEqual({ id: "1", count: 1 });
    const over = [
      { ...fits, title: "t".repeat(201) },
      { ...fits, body: "b".repeat(100_001) },
      { ...fits, tags: [...fits.tags, "one more"] },
      { ...fits, tags: ["y".repeat(65)] },
      // The fuzzer's 1.4 MB add: one tag repeated 200,000 times.
      { title: "big", body: "", tags: Array.from({ length: 200_000 }, () => "same") },
    ];
    for (const note of over) {
      const result = await client.callTool("add", note);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
    }
    expect((await client.readResource("notes://all")).contents[0]).toMatchObject({ text: `1: ${fits.title}` });
  });

  it("refuses a tag with a lone surrogate (no store key can hold one) before it writes anything", async () => {
    const client = await createTestClient(new Notes(), { protocolVersion });
    for (const tag of ["\ud800", "a\udc00", "\udbff\ud800"]) {
      const result = await client.callTool("add", { title: "Odd", body: "", tags: ["fine", tag] });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
    }
    // Nothing of the refused adds was kept: no note, no count, no tag.
    expect((await client.readResource("notes://all")).contents[0]).toMatchObject({ text: "" });
    expect(await tagsOf(client)).toEqual([]);
    expect(
      (await client.callTool("add", { title: "Paired", body: "", tags: ["\ud83d\ude00"] })).structuredContent,
    ).toEqual({
      id: "1",
      count: 1,
    });
  });

  it("keeps the tag index as notes are added: reading notes://tags 50 times never walks the notes", async () => {
    // 2,000 notes × 32 tags from a pool of 4,096; each note counts how often it is read.
    let touches = 0;
    const notes = Array.from({ length: 2000 }, (_, i) => {
      const note = {
        title: `n${i}`,
        body: "",
        tags: Array.from({ length: 32 }, (_, j) => `tag-${(i * 32 + j) % 4096}`),
      };
      return new Proxy(note, {
        get(target, key, receiver) {
          touches++;
          return Reflect.get(target, key, receiver);
        },
      });
    });
    const client = await createTestClient(new Notes(notes), { protocolVersion });
    const expected = new Map<string, string[]>();
    for (let i = 0; i < 2000; i++) {
      for (let j = 0; j < 32; j++) {
        const tag = `tag-${(i * 32 + j) % 4096}`;
        expected.set(tag, [...(expected.get(tag) ?? []), String(i + 1)]);
      }
    }
    // The notes are written to the store on the first request that needs them.
    await client.readResource("notes://1");
    const afterAdding = touches;
    for (let read = 0; read < 50; read++) {
      const tags = await tagsOf(client);
      if (read === 0) expect(tags).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    expect(touches - afterAdding, "notes touched by 50 reads of notes://tags").toBe(0);
  });
});
