import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../index.js";
import type { TestClient } from "../testing/client.js";
import { createTestClient } from "../testing/client.js";
import type { Annotations, Icon } from "../wire/types.js";

// The 2026-07-28 schema's server-side types, field by field, as they leave the server (README "2026-07-28
// coverage"): every optional field a definition or a handler may set reaches the wire unchanged.

const SERVER_INFO = { name: "audit", version: "1.2.3" };
const icons: Icon[] = [{ src: "https://example.com/i.png", mimeType: "image/png", sizes: ["48x48"], theme: "dark" }];
const annotations: Annotations = {
  audience: ["user", "assistant"],
  priority: 0.5,
  lastModified: "2026-07-28T00:00:00Z",
};
const meta = { "example.com/k": "v" };
// Every ContentBlock kind, each optional field set.
const blocks = [
  { type: "text", text: "t", annotations, _meta: meta },
  { type: "image", data: "aW1n", mimeType: "image/png", annotations, _meta: meta },
  { type: "audio", data: "YXVk", mimeType: "audio/wav", annotations, _meta: meta },
  {
    type: "resource_link",
    uri: "test://r",
    name: "r",
    title: "R",
    description: "a link",
    mimeType: "text/plain",
    size: 3,
    icons,
    annotations,
    _meta: meta,
  },
  {
    type: "resource",
    resource: { uri: "test://e", mimeType: "text/plain", text: "e", _meta: meta },
    annotations,
    _meta: meta,
  },
  { type: "resource", resource: { uri: "test://b", mimeType: "application/octet-stream", blob: "AAE=" } },
];

const implementation = {
  ...SERVER_INFO,
  title: "Audit",
  description: "Every field",
  websiteUrl: "https://example.com",
  icons,
};
const serverInfoMeta = { "io.modelcontextprotocol/serverInfo": implementation };

function server() {
  const s = createServer({ ...implementation, instructions: "Use it well" });
  s.tool({
    name: "every_field",
    title: "Every field",
    description: "A tool with every field",
    icons,
    annotations: {
      title: "Every field (hint)",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    _meta: meta,
    input: { q: z.string().describe("the query") },
    output: z.array(z.number()),
    handler: () => ({ content: [{ type: "text", text: "[1,2]" }], structuredContent: [1, 2] }),
  });
  s.tool({
    name: "blocks",
    description: "Every content block kind",
    handler: () => ({ content: blocks, _meta: meta }),
  });
  s.tool({ name: "fails", description: "Says it failed", handler: () => ({ content: [], isError: true }) });
  s.resource({
    uri: "test://static",
    name: "static",
    title: "Static",
    description: "A static resource",
    mimeType: "text/plain",
    size: 5,
    icons,
    annotations,
    _meta: meta,
    handler: () => ({ contents: [{ uri: "test://static", mimeType: "text/plain", text: "hello", _meta: meta }] }),
  });
  s.resource({ uri: "test://bytes", mimeType: "application/octet-stream", handler: () => new Uint8Array([0, 1]) });
  s.resource({
    uriTemplate: "test://t/{id}",
    name: "template",
    title: "Template",
    description: "A template",
    mimeType: "text/plain",
    icons,
    annotations,
    _meta: meta,
    handler: ({ id }) => `item ${id}`,
  });
  s.prompt({
    name: "greet",
    title: "Greet",
    description: "A prompt",
    icons,
    _meta: meta,
    args: { who: z.string().meta({ title: "Who" }).describe("whom"), tone: z.string().optional() },
    complete: { who: (value) => ({ values: [`${value}da`], total: 9, hasMore: true }) },
    handler: ({ who }) => ({
      description: "A greeting",
      messages: [
        { role: "user", content: { type: "text", text: `hi ${who}` } },
        { role: "assistant", content: { type: "image", data: "aW1n", mimeType: "image/png" } },
      ],
    }),
  });
  return s;
}

async function client(): Promise<TestClient> {
  return createTestClient(server(), { protocolVersion: "2026-07-28" });
}

describe("the 2026-07-28 schema's server-side fields on the wire", () => {
  it("DiscoverResult: supportedVersions, capabilities, instructions, cache hints, Implementation in _meta", async () => {
    const c = await client();
    const result = c.serverResult;
    expect(result.resultType).toBe("complete");
    expect(result.supportedVersions).toEqual(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
    expect(result.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(result.instructions).toBe("Use it well");
    expect(result.ttlMs).toEqual(expect.any(Number));
    expect(["public", "private"]).toContain(result.cacheScope);
    expect(result._meta).toEqual(serverInfoMeta);
  });

  it("Tool: name, title, description, icons, inputSchema, outputSchema (any type), annotations and each hint, _meta", async () => {
    const c = await client();
    const result = await c.request("tools/list");
    expect(result).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number), cacheScope: "public" });
    const tool = (result.tools as Record<string, unknown>[]).find((t) => t.name === "every_field");
    expect(tool).toMatchObject({
      name: "every_field",
      title: "Every field",
      description: "A tool with every field",
      icons,
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", description: "the query" } },
        required: ["q"],
      },
      outputSchema: { type: "array", items: { type: "number" } },
      annotations: {
        title: "Every field (hint)",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      _meta: meta,
    });
    expect(result).not.toHaveProperty("nextCursor");
  });

  it("CallToolResult: every content block kind with annotations and _meta, structuredContent (non-object), isError", async () => {
    const c = await client();
    expect(await c.request("tools/call", { name: "blocks" })).toEqual({
      resultType: "complete",
      isError: false,
      content: blocks,
      _meta: { ...meta, ...serverInfoMeta },
    });
    const structured = await c.request("tools/call", { name: "every_field", arguments: { q: "x" } });
    expect(structured).toMatchObject({ structuredContent: [1, 2], content: [{ type: "text", text: "[1,2]" }] });
    expect(await c.request("tools/call", { name: "fails" })).toMatchObject({ content: [], isError: true });
  });

  it("Resource, ResourceTemplate, ReadResourceResult (text and blob contents, _meta, cache hints)", async () => {
    const c = await client();
    const list = await c.request("resources/list");
    expect(list).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number), cacheScope: "public" });
    expect(list.resources).toContainEqual({
      uri: "test://static",
      name: "static",
      title: "Static",
      description: "A static resource",
      mimeType: "text/plain",
      size: 5,
      icons,
      annotations,
      _meta: meta,
    });
    const templates = await c.request("resources/templates/list");
    expect(templates).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number), cacheScope: "public" });
    expect(templates.resourceTemplates).toEqual([
      {
        uriTemplate: "test://t/{id}",
        name: "template",
        title: "Template",
        description: "A template",
        mimeType: "text/plain",
        icons,
        annotations,
        _meta: meta,
      },
    ]);
    const text = await c.request("resources/read", { uri: "test://static" });
    expect(text).toMatchObject({
      resultType: "complete",
      ttlMs: expect.any(Number),
      cacheScope: expect.stringMatching(/^(public|private)$/),
      contents: [{ uri: "test://static", mimeType: "text/plain", text: "hello", _meta: meta }],
    });
    expect((await c.request("resources/read", { uri: "test://bytes" })).contents).toEqual([
      { uri: "test://bytes", mimeType: "application/octet-stream", blob: "AAE=" },
    ]);
    expect((await c.request("resources/read", { uri: "test://t/7" })).contents).toEqual([
      { uri: "test://t/7", mimeType: "text/plain", text: "item 7" },
    ]);
  });

  it("Prompt, PromptArgument, GetPromptResult and PromptMessage (role, content block)", async () => {
    const c = await client();
    const list = await c.request("prompts/list");
    expect(list).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number), cacheScope: "public" });
    expect(list.prompts).toEqual([
      {
        name: "greet",
        title: "Greet",
        description: "A prompt",
        icons,
        _meta: meta,
        arguments: [
          { name: "who", title: "Who", description: "whom", required: true },
          { name: "tone", required: false },
        ],
      },
    ]);
    const got = await c.request("prompts/get", { name: "greet", arguments: { who: "Ada" } });
    expect(got).toEqual({
      resultType: "complete",
      description: "A greeting",
      messages: [
        { role: "user", content: { type: "text", text: "hi Ada" } },
        { role: "assistant", content: { type: "image", data: "aW1n", mimeType: "image/png" } },
      ],
      _meta: serverInfoMeta,
    });
  });

  it("CompleteResult: completion.values, total, hasMore", async () => {
    const c = await client();
    const result = await c.request("completion/complete", {
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "who", value: "A" },
    });
    expect(result).toEqual({
      resultType: "complete",
      completion: { values: ["Ada"], total: 9, hasMore: true },
      _meta: serverInfoMeta,
    });
  });
});
