import { describe, expect, it } from "vitest";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { audio, embeddedResource, image, resourceLink, text } from "./results.js";
import { MetaKey } from "./versions.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("content helpers", () => {
  it("make the blocks the spec defines, bytes as base64", () => {
    expect(text("hi", { annotations: { audience: ["user"] } })).toEqual({
      type: "text",
      text: "hi",
      annotations: { audience: ["user"] },
    });
    expect(image(PNG, "image/png")).toEqual({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
    expect(image("iVBORw0KGgo=", "image/png").data).toBe("iVBORw0KGgo=");
    expect(audio(new Uint8Array([1, 2, 3]), "audio/wav")).toEqual({
      type: "audio",
      data: "AQID",
      mimeType: "audio/wav",
    });
    expect(resourceLink({ uri: "notes://1", name: "note 1", mimeType: "text/plain" })).toEqual({
      type: "resource_link",
      uri: "notes://1",
      name: "note 1",
      mimeType: "text/plain",
    });
    expect(embeddedResource("notes://1", "body", { mimeType: "text/plain" })).toEqual({
      type: "resource",
      resource: { uri: "notes://1", mimeType: "text/plain", text: "body" },
    });
    expect(embeddedResource("bin://x", new Uint8Array([255]))).toEqual({
      type: "resource",
      resource: { uri: "bin://x", blob: "/w==" },
    });
  });
});

function server() {
  const s = createServer({ name: "content", version: "1" });
  s.tool({
    name: "mixed",
    description: "Every kind of block",
    handler: () => [
      text("see:"),
      image(PNG, "image/png"),
      resourceLink({ uri: "notes://1", name: "note 1" }),
      embeddedResource("notes://1", "body"),
    ],
  });
  s.tool({
    name: "with_meta",
    description: "A result with _meta",
    handler: () => ({ content: [text("ok")], _meta: { "example.com/trace": "abc" } }),
  });
  return s;
}

describe.each(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const)("results in %s", (protocolVersion) => {
  it("carry every block; a resource link is told as text where the revision has no resource_link", async () => {
    const client = await createTestClient(server(), { protocolVersion });
    const { content } = await client.callTool("mixed");
    expect(content.map((block) => block.type)).toEqual(
      protocolVersion === "2025-03-26"
        ? ["text", "image", "text", "resource"]
        : ["text", "image", "resource_link", "resource"],
    );
    if (protocolVersion === "2025-03-26") expect(content[2]).toEqual({ type: "text", text: "note 1: notes://1" });
  });

  it("pass a result's own _meta through (beside the server's identity in 2026-07-28)", async () => {
    const client = await createTestClient(server(), { protocolVersion });
    const result = await client.callTool("with_meta");
    expect(result._meta).toEqual(
      protocolVersion === "2026-07-28"
        ? { "example.com/trace": "abc", [MetaKey.serverInfo]: { name: "content", version: "1" } }
        : { "example.com/trace": "abc" },
    );
  });
});
