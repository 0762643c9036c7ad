import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, type Server, text } from "../index.js";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";

const REVISIONS = [...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS];

function newServer(): Server {
  return createServer({ name: "prompts-test", version: "1.0.0" });
}

describe("argument validation and unknown names", () => {
  function server(): Server {
    const built = newServer();
    built.prompt({
      name: "greet",
      description: "Greets",
      args: { person: z.string(), mood: z.enum(["happy", "sad"]).optional() },
      handler: ({ person }) => `Hello ${person}`,
    });
    return built;
  }

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: unknown prompt, missing argument and an argument that fails its schema are -32602`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const unknownPrompt = await rpcError(client.getPrompt("nope"));
      expect(unknownPrompt.code).toBe(-32602);
      expect(unknownPrompt.message).toContain("nope");
      const missing = await rpcError(client.getPrompt("greet", { mood: "happy" }));
      expect(missing.code).toBe(-32602);
      expect(missing.message).toContain('"person"');
      const badEnum = await rpcError(client.getPrompt("greet", { person: "Ann", mood: "angry" }));
      expect(badEnum.code).toBe(-32602);
      expect(badEnum.message).toContain("mood");
      expect((await client.getPrompt("greet", { person: "Ann" })).messages).toEqual([
        { role: "user", content: { type: "text", text: "Hello Ann" } },
      ]);
    });
  }
});

describe("prompt handler returns", () => {
  function server(): Server {
    const built = newServer();
    built.prompt({ name: "string", description: "A string prompt", handler: () => "Summarise this" });
    built.prompt({
      name: "messages",
      handler: () => [
        { role: "user" as const, content: "Question?" },
        { role: "assistant" as const, content: text("Answer.") },
      ],
    });
    built.prompt({
      name: "whole",
      description: "default description",
      handler: () => ({
        description: "own description",
        messages: [{ role: "user" as const, content: text("Hi") }],
      }),
    });
    return built;
  }

  it("a string is one user message, with the prompt's description", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("string")).toEqual({
      description: "A string prompt",
      messages: [{ role: "user", content: { type: "text", text: "Summarise this" } }],
    });
  });

  it("messages keep their roles; string content becomes a text block", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("messages")).toEqual({
      messages: [
        { role: "user", content: { type: "text", text: "Question?" } },
        { role: "assistant", content: { type: "text", text: "Answer." } },
      ],
    });
  });

  it("a whole result is kept", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("whole")).toEqual({
      description: "own description",
      messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
    });
  });
});
