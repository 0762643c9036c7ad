import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, type Server } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { jsonSchema } from "./json-schema.js";

// docs/schemas.md as written: its four forecast tools run (imports aside), list alike and refuse alike, and its size
// error is what a server says.

async function doc(): Promise<string> {
  // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
  const raw = "../../../../docs/schemas.md?raw";
  return ((await import(/* @vite-ignore */ raw)) as { default: string }).default;
}

function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const next = text.indexOf("\n## ", start + heading.length + 2);
  return text.slice(start, next === -1 ? undefined : next);
}

function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1] ?? "");
}

const LIBRARIES = { z, v, toStandardJsonSchema, type, jsonSchema };

// A snippet of the doc run on a fresh server, its imports given by name.
function run(snippet: string): Server {
  const server = createServer({ name: "weather", version: "1" });
  const body = snippet.replace(/^import .*;$/gm, "");
  new Function("server", ...Object.keys(LIBRARIES), body)(server, ...Object.values(LIBRARIES));
  return server;
}

async function forecasts() {
  const snippets = blocks(section(await doc(), "## The same tool four ways"), "ts");
  expect(snippets).toHaveLength(4);
  return Promise.all(snippets.map((snippet) => createTestClient(run(snippet))));
}

describe("docs/schemas.md", () => {
  it("its four forecast tools run, and list the input schema it shows (zod's integer range aside)", async () => {
    const shown = JSON.parse(blocks(section(await doc(), "## What `tools/list` shows"), "json")[0] ?? "");
    for (const client of await forecasts()) {
      const [tool] = await client.listTools();
      const { days, ...others } = (tool?.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const { minimum: _min, maximum: _max, ...integer } = days ?? {};
      expect({ ...tool?.inputSchema, properties: { ...others, days: integer } }).toEqual(shown);
      expect(tool?.outputSchema).toMatchObject({ type: "object", properties: { summary: { type: "string" } } });
      const answer = await client.callTool("forecast", { city: "Oslo", days: 2 });
      expect(answer.structuredContent).toEqual({ summary: "2 day(s) in Oslo" });
    }
  });

  it("they refuse a bad call alike, as its errors section shows", async () => {
    const shown = blocks(section(await doc(), "## How errors read"), "")[0]?.trim();
    for (const client of await forecasts()) {
      const text = async (args: Record<string, unknown>) =>
        ((await client.callTool("forecast", args)).content[0] as { text: string }).text;
      expect(await text({})).toBe('Invalid arguments for tool "forecast":\n- city: required (expected string)');
      expect(await text({ city: 3 })).toBe(
        'Invalid arguments for tool "forecast":\n- city: expected string, received number',
      );
      expect(await text({ city: "Oslo", days: "2" })).toBe(
        'Invalid arguments for tool "forecast":\n- days: expected number, received string',
      );
      // Ajv tells the first failure only.
      expect(shown?.startsWith(await text({ days: "2" }))).toBe(true);
    }
  });

  it("its size error is the one a server gives", async () => {
    const shown = blocks(section(await doc(), "## `$ref`, recursion and size"), "")[0]?.trim();
    let level: z.ZodType = z.string();
    for (let i = 0; i < 14; i++) level = z.object({ a: level, b: level });
    const server = createServer({ name: "big", version: "1" });
    expect(() => server.tool({ name: "deep", description: "d", input: { dag: level }, handler: () => "" })).toThrow(
      shown,
    );
  });
});
