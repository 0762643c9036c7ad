import { isPlainObject } from "../wire/json-rpc.js";
import type {
  Annotations,
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  GetPromptResult,
  ImageContent,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  ResourceLink,
  TextContent,
} from "../wire/types.js";

/** True for a well-formed MCP content block. */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (!isPlainObject(value)) return false;
  switch (value.type) {
    case "text":
      return typeof value.text === "string";
    case "image":
    case "audio":
      return typeof value.data === "string" && typeof value.mimeType === "string";
    case "resource_link":
      return typeof value.uri === "string" && typeof value.name === "string";
    case "resource":
      return (
        isPlainObject(value.resource) &&
        typeof value.resource.uri === "string" &&
        (typeof value.resource.text === "string" || typeof value.resource.blob === "string")
      );
    default:
      return false;
  }
}

function isContentList(value: unknown): value is ContentBlock[] {
  return Array.isArray(value) && value.every(isContentBlock);
}

/** True for a whole tool result: an object with a `content` array of blocks. */
export function isCallToolResult(value: unknown): value is CallToolResult {
  return isPlainObject(value) && isContentList(value.content);
}

/** A text content block. */
export function text(value: string, extra?: Pick<TextContent, "annotations" | "_meta">): TextContent {
  return extra ? { type: "text", text: value, ...extra } : { type: "text", text: value };
}

// Image and audio blocks have the same fields; a string is taken to be base64 already.
function media<T extends ImageContent | AudioContent>(type: T["type"]) {
  return (data: Uint8Array | string, mimeType: string, extra?: Pick<T, "annotations" | "_meta">): T =>
    ({ type, data: typeof data === "string" ? data : base64(data), mimeType, ...extra }) as T;
}

/**
 * An image content block from bytes (a Buffer or Uint8Array) or base64 text.
 * @example
 * ```ts source="examples/protocol.ts#image"
 * return [text("A red dot:"), image(await readFile("dot.png"), "image/png")];
 * ```
 */
export const image = media<ImageContent>("image");

/** An audio content block from bytes or base64 text. */
export const audio = media<AudioContent>("audio");

/** A link to a resource the client may read (2025-06-18+; sent as text to 2025-03-26 clients). */
export function resourceLink(link: Omit<ResourceLink, "type">): ResourceLink {
  return { type: "resource_link", ...link };
}

/** A resource embedded in a result: text, or bytes (sent as base64). */
export function embeddedResource(
  uri: string,
  contents: string | Uint8Array,
  options: { mimeType?: string; annotations?: Annotations; _meta?: Record<string, unknown> } = {},
): EmbeddedResource {
  const { mimeType, annotations, _meta } = options;
  const resource =
    typeof contents === "string"
      ? { uri, ...(mimeType ? { mimeType } : {}), text: contents }
      : { uri, ...(mimeType ? { mimeType } : {}), blob: base64(contents) };
  const block: EmbeddedResource = { type: "resource", resource };
  if (annotations) block.annotations = annotations;
  if (_meta) block._meta = _meta;
  return block;
}

/** A tool result the model reads as a failure it may correct. */
export function errorResult(message: string): CallToolResult {
  return { content: [text(message)], isError: true };
}

function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/**
 * What a tool handler returned, as a result: a string or number → text; content blocks → content;
 * a whole result → itself; any other object or array → `structuredContent` plus its JSON as text.
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  switch (typeof value) {
    case "string":
      return { content: [text(value)] };
    case "number":
    case "boolean":
    case "bigint":
      return { content: [text(String(value))] };
  }
  if (isCallToolResult(value)) return value;
  if (isContentBlock(value)) return { content: [value] };
  if (isContentList(value) && value.length > 0) return { content: value };
  return structured(value);
}

/** Data as a result: `structuredContent` plus its JSON as text. */
export function structured(value: unknown): CallToolResult {
  const json = jsonText(value);
  // A value with toJSON (a Date, say) is sent as what it serializes to, so both fields say the same thing.
  const hasToJson = typeof (value as { toJSON?: unknown } | null)?.toJSON === "function";
  return { content: [text(json)], structuredContent: hasToJson ? JSON.parse(json) : value };
}

function toMessage(value: unknown): PromptMessage {
  if (isPlainObject(value) && (value.role === "user" || value.role === "assistant")) {
    const content = typeof value.content === "string" ? text(value.content) : value.content;
    if (isContentBlock(content)) return { role: value.role, content };
  }
  if (typeof value === "string") return { role: "user", content: text(value) };
  if (isContentBlock(value)) return { role: "user", content: value };
  throw new TypeError("a prompt message must be a string, a content block, or { role, content }");
}

/** What a prompt handler returned, as a result: a string, messages, or a whole result. */
export function toGetPromptResult(value: unknown, description: string | undefined): GetPromptResult {
  if (isPlainObject(value) && Array.isArray(value.messages)) {
    const result = { ...value, messages: value.messages.map(toMessage) } as GetPromptResult;
    if (result.description === undefined && description !== undefined) result.description = description;
    return result;
  }
  const messages = Array.isArray(value) ? value.map(toMessage) : [toMessage(value)];
  return description === undefined ? { messages } : { description, messages };
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

function toContents(value: unknown, uri: string, mimeType: string | undefined): ResourceContents {
  if (typeof value === "string") return mimeType ? { uri, mimeType, text: value } : { uri, text: value };
  if (value instanceof Uint8Array) {
    const blob = base64(value);
    return mimeType ? { uri, mimeType, blob } : { uri, blob };
  }
  if (isPlainObject(value) && (typeof value.text === "string" || typeof value.blob === "string")) {
    const contents = { ...value, uri: typeof value.uri === "string" ? value.uri : uri } as ResourceContents;
    if (contents.mimeType === undefined && mimeType !== undefined) contents.mimeType = mimeType;
    return contents;
  }
  return { uri, mimeType: mimeType ?? "application/json", text: jsonText(value) };
}

/**
 * What a resource handler returned, as a result: text, bytes, contents, or a whole result.
 * `undefined` and `null` mean the resource does not exist.
 */
export function toReadResourceResult(
  value: unknown,
  uri: string,
  mimeType: string | undefined,
): ReadResourceResult | undefined {
  if (value === undefined || value === null) return undefined;
  if (isPlainObject(value) && Array.isArray(value.contents)) {
    return { ...value, contents: value.contents.map((item) => toContents(item, uri, mimeType)) };
  }
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => isPlainObject(item) && ("text" in item || "blob" in item))
  ) {
    return { contents: value.map((item) => toContents(item, uri, mimeType)) };
  }
  return { contents: [toContents(value, uri, mimeType)] };
}
