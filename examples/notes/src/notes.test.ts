import { createTestClient } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
// The class as tsc compiled it: vite (which runs these tests) does not lower TC39 decorators.
import { Notes } from "../dist/notes.js";

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
});
