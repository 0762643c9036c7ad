import { describe, expect, it } from "vitest";
import { text } from "../protocol/results.js";
import { MetaKey } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { createServer } from "./server.js";

function server() {
  const s = createServer({ name: "content", version: "1" });
  s.tool({
    name: "with_meta",
    description: "A result with _meta",
    handler: () => ({ content: [text("ok")], _meta: { "example.com/trace": "abc" } }),
  });
  return s;
}

describe.each(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const)("results in %s", (protocolVersion) => {
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
