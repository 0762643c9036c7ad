// The base class (mcp-server.ts): one server per instance, identity from fields or super().
// Run in both decorator dialects (see dialect-suite.ts).
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { Notes, texts } from "./decorators-suite.js";
import { DIALECT } from "./dialect-suite.js";

describe(`decorators (${DIALECT})`, () => {
  it("keeps each instance's state its own", async () => {
    const a = new Notes();
    const b = new Notes();
    await texts(a, "add", { title: "only in a", body: "" });
    expect((await texts(a, "count_notes")).structuredContent).toEqual({ count: 1 });
    expect((await texts(b, "count_notes")).structuredContent).toEqual({ count: 0 });
    expect(a.toServer()).toBe(a.toServer());
    expect(a.toServer()).not.toBe(b.toServer());
  });

  it("takes identity from super() options too", async () => {
    class Named extends McpServer {
      constructor() {
        super({ name: "from-options", version: "9.9.9", instructions: "hi" });
      }
      @tool({ description: "x" })
      x() {
        return 1;
      }
    }
    expect((await createTestClient(new Named(), { protocolVersion: "2025-11-25" })).serverResult).toMatchObject({
      serverInfo: { name: "from-options", version: "9.9.9" },
      instructions: "hi",
    });
  });
});
