// The base class (mcp-server.ts): one server per instance, identity from fields or super().
// Run in both decorator dialects (see dialect-suite.ts).
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, resource, tool } from "@toolsmith/decorators";
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

  it("a module class's super({ cache }) goes with it into super({ mount }): mounted, nothing it serves is cached wider", async () => {
    class Inbox extends McpServer {
      constructor() {
        super({ cache: { read: { ttlMs: 0, cacheScope: "private" }, list: { ttlMs: 5_000, cacheScope: "private" } } });
      }
      @resource("inbox://mine")
      mine() {
        return "my mail";
      }
      @tool({ description: "Count mail" })
      count() {
        return 1;
      }
    }
    class Desk extends McpServer {
      constructor() {
        const minute = { ttlMs: 60_000, cacheScope: "public" } as const;
        super({ cache: { read: minute, list: minute }, mount: { inbox: new Inbox() } });
      }
      @resource("desk://about")
      about() {
        return "a desk";
      }
    }
    const client = await createTestClient(new Desk());
    expect(await client.request("resources/read", { uri: "inbox://mine" })).toMatchObject({
      ttlMs: 0,
      cacheScope: "private",
    });
    expect(await client.request("resources/read", { uri: "desk://about" })).toMatchObject({
      ttlMs: 60_000,
      cacheScope: "public",
    });
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
  });
});
