import { describe, expect, it } from "vitest";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { embeddedResource, image, resourceLink, text } from "./results.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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
});
