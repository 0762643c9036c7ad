import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Colors } from "./colors.js";
import { usage } from "./exit-codes.js";
import { propertyType, withArticle } from "./schema-summary.js";

/** `--args` JSON, which must be an object. */
export function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usage(`--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw usage(`--args is a JSON object such as '{"title":"Milk"}'; got ${text}`);
  }
  return value as Record<string, unknown>;
}

/**
 * key=value pairs as arguments, each value read as the tool's input schema says: text for a string, a number,
 * true/false, JSON for objects and arrays; without a schema type, JSON when it parses, else text.
 */
export function parsePairs(pairs: string[], inputSchema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, at);
    const text = pair.slice(at + 1);
    const type = propertyType(inputSchema, key);
    if (type === "string") args[key] = text;
    else if (type === "number" || type === "integer") {
      const value = Number(text);
      if (text.trim() === "" || Number.isNaN(value)) throw usage(`${key} is ${withArticle(type)}; got "${text}"`);
      args[key] = value;
    } else if (type === "boolean") {
      if (text !== "true" && text !== "false") throw usage(`${key} is true or false; got "${text}"`);
      args[key] = text === "true";
    } else if (type === "object" || type === "array") {
      try {
        args[key] = JSON.parse(text);
      } catch {
        throw usage(`${key} is JSON (${withArticle(type)}); got ${text}`);
      }
    } else {
      try {
        args[key] = JSON.parse(text);
      } catch {
        args[key] = text;
      }
    }
  }
  return args;
}

/** A call's result for people: text as text, structured content as JSON, other blocks named. */
export function formatResult(result: CallToolResult, c: Colors): string {
  const out: string[] = [];
  const structured = result.structuredContent;
  const structuredJson = structured === undefined ? undefined : JSON.stringify(structured);
  for (const block of result.content ?? []) {
    if (block.type === "text") {
      // The JSON copy of structuredContent that servers add for older clients says nothing new.
      if (structuredJson !== undefined && safeJson(block.text) === structuredJson) continue;
      out.push(result.isError ? c.red(block.text) : block.text);
    } else if (block.type === "image" || block.type === "audio") {
      out.push(c.dim(`[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`));
    } else if (block.type === "resource_link") {
      out.push(c.dim(`[link ${block.uri}${block.name ? ` ${block.name}` : ""}]`));
    } else if (block.type === "resource") {
      const r = block.resource;
      out.push(c.dim(`[resource ${r.uri}]`));
      if ("text" in r && typeof r.text === "string") out.push(r.text);
    } else {
      out.push(c.dim(`[${(block as { type: string }).type}]`));
    }
  }
  if (structured !== undefined) out.push(JSON.stringify(structured, null, 2));
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

function safeJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return undefined;
  }
}
