import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../index.js";
import { createTestClient } from "../testing/client.js";

// Where the handshake era's revisions differ from 2026-07-28 in the fields the server sends (README "2026-07-28
// coverage"): the initialize result, the server's identity, and a prompt argument's title.

const icons = [{ src: "https://example.com/i.png", mimeType: "image/png" }];

function server() {
  const s = createServer({
    name: "eras",
    version: "1",
    title: "Eras",
    description: "Differs by revision",
    websiteUrl: "https://example.com",
    icons,
    instructions: "Read me",
  });
  s.prompt({
    name: "greet",
    description: "A prompt",
    args: { who: z.string().meta({ title: "Who" }).describe("whom") },
    handler: ({ who }) => `hi ${who}`,
  });
  s.prompt({
    name: "linked",
    description: "A prompt whose message links a resource",
    handler: () => [{ role: "user", content: { type: "resource_link", uri: "docs://a", name: "a", description: "A" } }],
  });
  return s;
}

describe("the initialize result and the server's identity, by revision", () => {
  it("2025-11-25: protocolVersion, capabilities, instructions, serverInfo with title, description, websiteUrl, icons", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(client.serverResult).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { prompts: { listChanged: true }, logging: {} },
      instructions: "Read me",
      serverInfo: {
        name: "eras",
        version: "1",
        title: "Eras",
        description: "Differs by revision",
        websiteUrl: "https://example.com",
        icons,
      },
    });
  });

  it("2025-06-18 has title but not description, websiteUrl or icons; 2025-03-26 has none of them", async () => {
    const june = await createTestClient(server(), { protocolVersion: "2025-06-18" });
    expect(june.serverResult.serverInfo).toEqual({ name: "eras", version: "1", title: "Eras" });
    const march = await createTestClient(server(), { protocolVersion: "2025-03-26" });
    expect(march.serverResult.serverInfo).toEqual({ name: "eras", version: "1" });
  });
});

describe("a prompt argument's title (BaseMetadata from 2025-06-18 on)", () => {
  for (const protocolVersion of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: listed from the argument schema's title`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      expect((await client.listPrompts())[0]?.arguments).toEqual([
        { name: "who", title: "Who", description: "whom", required: true },
      ]);
    });
  }

  it("2025-03-26: left out, as that revision has no titles", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-03-26" });
    expect((await client.listPrompts())[0]?.arguments).toEqual([{ name: "who", description: "whom", required: true }]);
  });
});

describe("a prompt message's resource_link (2025-06-18 on)", () => {
  for (const protocolVersion of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: sent as the link`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      expect((await client.getPrompt("linked")).messages).toEqual([
        { role: "user", content: { type: "resource_link", uri: "docs://a", name: "a", description: "A" } },
      ]);
    });
  }

  it("2025-03-26: told as text, as a tool result's link is, since that revision has no resource_link", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-03-26" });
    expect((await client.getPrompt("linked")).messages).toEqual([
      { role: "user", content: { type: "text", text: "a: docs://a (A)" } },
    ]);
  });
});
