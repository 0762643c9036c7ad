import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { keptCapabilities, keptClientInfo, SESSION_BOUNDS, utf8Length } from "./session-bounds.js";

// Issue 24, item 3: a session kept the client's capabilities and info as sent (4 MiB each, loaded on every request).
// What it keeps is bounded; what the server reads of them (and what an ordinary client declares) survives.

const MIB = 1024 * 1024;
const ORDINARY = {
  roots: { listChanged: true },
  sampling: { context: {}, tools: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
  experimental: { "vendor/feature": { level: 2 } },
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};
// The same, with megabytes beside what the server reads.
const HOSTILE = {
  junk: "x".repeat(4 * MIB),
  ...ORDINARY,
  experimental: { ...ORDINARY.experimental, huge: { deep: Array.from({ length: 10_000 }, (_, i) => `item ${i}`) } },
  extensions: { ...ORDINARY.extensions, "example.com/big": { blob: "y".repeat(MIB) } },
};

const jsonBytes = (value: unknown) => utf8Length(JSON.stringify(value));

describe("keptCapabilities", () => {
  it("keeps an ordinary declaration as it was sent", () => {
    expect(keptCapabilities(ORDINARY)).toEqual(ORDINARY);
    expect(keptCapabilities({})).toEqual({});
    for (const odd of [undefined, null, "x", 1, [1]]) expect(keptCapabilities(odd)).toEqual({});
  });

  it("keeps at most capabilitiesBytes of JSON, every capability and flag the server reads first", () => {
    const kept = keptCapabilities(HOSTILE);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(SESSION_BOUNDS.capabilitiesBytes);
    expect(kept).toMatchObject({
      roots: { listChanged: true },
      sampling: { context: {}, tools: {} },
      elicitation: { form: {}, url: {} },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] }, "example.com/big": {} },
      experimental: { "vendor/feature": { level: 2 } },
    });
    expect(kept).not.toHaveProperty("junk");
    // An array keeps its items' places: it ends at the first that does not fit.
    const deep = (kept.experimental as { huge: { deep: string[] } }).huge.deep;
    expect(deep.length).toBeGreaterThan(0);
    expect(deep).toEqual(Array.from({ length: deep.length }, (_, i) => `item ${i}`));
  });

  it("counts bytes, not characters, and keeps `__proto__` as a plain key", () => {
    const wide = keptCapabilities({ a: "é".repeat(3000), b: {} });
    expect(wide).toEqual({ b: {} });
    const odd = keptCapabilities(JSON.parse('{"__proto__":{"polluted":true},"elicitation":{}}'));
    expect(JSON.stringify(odd)).toBe('{"__proto__":{"polluted":true},"elicitation":{}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("keptClientInfo", () => {
  it("keeps name, version and title, each cut to clientInfoChars, never half a surrogate pair", () => {
    const max = SESSION_BOUNDS.clientInfoChars;
    expect(keptClientInfo({ name: "c", version: "1" })).toEqual({ name: "c", version: "1" });
    const kept = keptClientInfo({
      name: "n".repeat(4 * MIB),
      version: `${"v".repeat(max - 1)}🙂`,
      title: "T",
      description: "d".repeat(MIB),
      icons: [{ src: `data:image/png;base64,${"A".repeat(MIB)}` }],
      websiteUrl: "https://example.com",
    });
    expect(kept).toEqual({ name: "n".repeat(max), version: "v".repeat(max - 1), title: "T" });
    expect(keptClientInfo(undefined)).toEqual({ name: "", version: "" });
  });
});

describe("a handshake-era session declared in megabytes", () => {
  it("keeps them bounded, and elicitation (form and url), sampling with tools and roots still work", async () => {
    const s = createServer({ name: "bounded", version: "1" });
    s.tool({
      name: "declared",
      description: "What the session kept of its client",
      handler: (_args, ctx) => ({ info: jsonBytes(ctx.clientInfo), capabilities: jsonBytes(ctx.clientCapabilities) }),
    });
    s.tool({
      name: "ask",
      description: "Asks every way",
      handler: async (_args, ctx) => {
        const url = await ctx.elicit({ mode: "url", message: "Sign in", url: "https://example.com/login" });
        const form = await ctx.elicit({ message: "Name?", schema: z.object({ name: z.string() }) });
        const sampled = await ctx.sample({
          messages: [{ role: "user", content: { type: "text", text: "x" } }],
          maxTokens: 5,
          tools: [{ name: "t", inputSchema: { type: "object" } }],
        });
        const roots = await ctx.roots();
        return [url.action, form.action, sampled.model, roots.length].join(" ");
      },
    });
    const client = await createTestClient(s, {
      protocolVersion: "2025-11-25",
      clientInfo: { name: "n".repeat(4 * MIB), version: "1", description: "d".repeat(MIB) },
      capabilities: HOSTILE,
      elicit: async (params) =>
        params.mode === "url" ? { action: "accept" } : { action: "accept", content: { name: "a" } },
      sample: async () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }),
      roots: [{ uri: "file:///work" }],
    });
    const declared = (await client.callTool("declared")).structuredContent as { info: number; capabilities: number };
    expect(declared.capabilities).toBeLessThanOrEqual(SESSION_BOUNDS.capabilitiesBytes);
    expect(declared.info).toBeLessThan(3 * SESSION_BOUNDS.clientInfoChars + 100);
    expect((await client.callTool("ask")).content).toEqual([{ type: "text", text: "accept accept m 1" }]);
  });
});
