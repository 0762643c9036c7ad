import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../index.js";
import { createTestClient } from "../testing/client.js";
import type { Annotations, Icon } from "../wire/types.js";

// What 2025-03-26 and 2025-06-18 receive when a definition or a handler sets every field 2026-07-28 has: only the
// fields their own schema defines (modelcontextprotocol/specification, schema/<revision>/schema.json), nothing else.

type Revision = "2025-03-26" | "2025-06-18";
type Kind =
  | "Tool"
  | "Resource"
  | "ResourceTemplate"
  | "Prompt"
  | "PromptArgument"
  | "text"
  | "image"
  | "audio"
  | "resource_link"
  | "resource"
  | "Annotations"
  | "TextResourceContents"
  | "BlobResourceContents";

const MARCH: Record<Kind, string[]> = {
  Tool: ["annotations", "description", "inputSchema", "name"],
  Resource: ["annotations", "description", "mimeType", "name", "size", "uri"],
  ResourceTemplate: ["annotations", "description", "mimeType", "name", "uriTemplate"],
  Prompt: ["arguments", "description", "name"],
  PromptArgument: ["description", "name", "required"],
  text: ["annotations", "text", "type"],
  image: ["annotations", "data", "mimeType", "type"],
  audio: ["annotations", "data", "mimeType", "type"],
  resource_link: [],
  resource: ["annotations", "resource", "type"],
  Annotations: ["audience", "priority"],
  TextResourceContents: ["mimeType", "text", "uri"],
  BlobResourceContents: ["blob", "mimeType", "uri"],
};
const JUNE: Record<Kind, string[]> = {
  Tool: [...MARCH.Tool, "_meta", "outputSchema", "title"],
  Resource: [...MARCH.Resource, "_meta", "title"],
  ResourceTemplate: [...MARCH.ResourceTemplate, "_meta", "title"],
  Prompt: [...MARCH.Prompt, "_meta", "title"],
  PromptArgument: [...MARCH.PromptArgument, "title"],
  text: [...MARCH.text, "_meta"],
  image: [...MARCH.image, "_meta"],
  audio: [...MARCH.audio, "_meta"],
  resource_link: ["_meta", "annotations", "description", "mimeType", "name", "size", "title", "type", "uri"],
  resource: [...MARCH.resource, "_meta"],
  Annotations: [...MARCH.Annotations, "lastModified"],
  TextResourceContents: [...MARCH.TextResourceContents, "_meta"],
  BlobResourceContents: [...MARCH.BlobResourceContents, "_meta"],
};
const DEFINED: Record<Revision, Record<Kind, string[]>> = { "2025-03-26": MARCH, "2025-06-18": JUNE };

/** Every field of `value` (a `kind`) that `revision` does not define, nested ones as `Kind.field`. */
function undefinedFields(revision: Revision, kind: Kind, value: Record<string, unknown>): string[] {
  const allowed = DEFINED[revision][kind];
  const extra = Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${kind}.${key}`);
  const nested = (k: Kind, v: unknown) => undefinedFields(revision, k, v as Record<string, unknown>);
  if (value.annotations && kind !== "Tool") extra.push(...nested("Annotations", value.annotations));
  if (kind === "Prompt") for (const arg of value.arguments as unknown[]) extra.push(...nested("PromptArgument", arg));
  const resource = value.resource as Record<string, unknown> | undefined;
  if (kind === "resource" && resource) extra.push(...contentsFields(revision, resource));
  return extra;
}

function contentsFields(revision: Revision, contents: Record<string, unknown>): string[] {
  const kind = "text" in contents ? "TextResourceContents" : "BlobResourceContents";
  return undefinedFields(revision, kind, contents);
}

function blockFields(revision: Revision, block: { type: string }): string[] {
  return undefinedFields(revision, block.type as Kind, block as Record<string, unknown>);
}

const icons: Icon[] = [{ src: "https://example.com/i.png", mimeType: "image/png" }];
const annotations: Annotations = { audience: ["user"], priority: 0.5, lastModified: "2026-07-28T00:00:00Z" };
const _meta = { "example.com/k": "v" };
const link = { type: "resource_link", uri: "t://r", name: "r", title: "R", icons, annotations, _meta } as const;
const blocks = [
  { type: "text", text: "t", annotations, _meta },
  { type: "image", data: "aW1n", mimeType: "image/png", annotations, _meta },
  { type: "audio", data: "YXVk", mimeType: "audio/wav", annotations, _meta },
  link,
  { type: "resource", resource: { uri: "t://e", text: "e", _meta }, annotations, _meta },
  { type: "resource", resource: { uri: "t://b", blob: "AAE=", _meta } },
] as const;

function server() {
  const s = createServer({ name: "older", version: "1" });
  const common = { title: "T", description: "d", icons, _meta };
  s.tool({ name: "every", ...common, input: { q: z.string() }, handler: () => ({ content: [...blocks] }) });
  s.resource({
    uri: "t://s",
    name: "s",
    ...common,
    annotations,
    handler: () => ({ contents: [{ uri: "t://s", text: "s", _meta }] }),
  });
  s.resource({ uriTemplate: "t://x/{id}", name: "x", ...common, annotations, handler: ({ id }) => id });
  s.prompt({
    name: "p",
    ...common,
    args: { who: z.string().meta({ title: "Who" }).describe("whom") },
    handler: () => blocks.map((content) => ({ role: "user" as const, content })),
  });
  return s;
}

describe.each(["2025-03-26", "2025-06-18"] as const)("%s receives only the fields its schema defines", (revision) => {
  it("in tools, resources, resource templates and prompts as listed", async () => {
    const c = await createTestClient(server(), { protocolVersion: revision });
    const [tool] = await c.listTools();
    const [resource] = await c.listResources();
    const [template] = await c.listResourceTemplates();
    const [prompt] = await c.listPrompts();
    expect(undefinedFields(revision, "Tool", { ...tool })).toEqual([]);
    expect(undefinedFields(revision, "Resource", { ...resource })).toEqual([]);
    expect(undefinedFields(revision, "ResourceTemplate", { ...template })).toEqual([]);
    expect(undefinedFields(revision, "Prompt", { ...prompt })).toEqual([]);
    // What the revision defines still arrives.
    expect(resource?.annotations).toEqual(
      revision === "2025-06-18" ? annotations : { audience: ["user"], priority: 0.5 },
    );
    expect("_meta" in (tool ?? {})).toBe(revision === "2025-06-18");
  });

  it("in a tool result's blocks, a prompt's messages and a read's contents", async () => {
    const c = await createTestClient(server(), { protocolVersion: revision });
    const { content } = await c.callTool("every", { q: "x" });
    const { messages } = await c.getPrompt("p", { who: "w" });
    const { contents } = await c.readResource("t://s");
    expect(content.flatMap((block) => blockFields(revision, block))).toEqual([]);
    expect(messages.flatMap((message) => blockFields(revision, message.content))).toEqual([]);
    expect(contents.flatMap((item) => contentsFields(revision, { ...item }))).toEqual([]);
    if (revision === "2025-06-18") {
      const { icons: _dropped, ...linked } = link;
      expect(content[3]).toEqual(linked);
      expect(messages[3]?.content).toEqual(linked);
      expect(content[0]).toEqual(blocks[0]);
    } else {
      expect(content[0]).toEqual({ type: "text", text: "t", annotations: { audience: ["user"], priority: 0.5 } });
      expect(content[3]).toEqual({ type: "text", text: "r: t://r" });
    }
  });
});

describe("an MCP App in 2025-03-26", () => {
  it("is neither declared nor linked, since that revision has no _meta on tools", async () => {
    const s = createServer({ name: "apps", version: "1" });
    s.tool({
      name: "chart",
      description: "Chart",
      ui: { uri: "ui://c/v.html", html: "<p>c</p>" },
      handler: () => "ok",
    });
    const march = await createTestClient(s, { protocolVersion: "2025-03-26" });
    expect(march.serverResult.capabilities).not.toHaveProperty("extensions");
    expect(await march.listTools()).toEqual([{ name: "chart", description: "Chart", inputSchema: expect.any(Object) }]);
    const june = await createTestClient(s, { protocolVersion: "2025-06-18" });
    expect(june.serverResult.capabilities).toHaveProperty(["extensions", "io.modelcontextprotocol/ui"]);
    expect((await june.listTools())[0]?._meta).toHaveProperty("ui");
  });
});
