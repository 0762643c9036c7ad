import { queryPairs, type Style, styleOf } from "./serialize.js";

// A request body of one of the media types sent: JSON, text, a form (application/x-www-form-urlencoded) or
// multipart/form-data. A form's fields are written as query values are (each property's `encoding` style, default
// form with explode); a multipart's as one part each (an array as a part per item, an object as JSON text), and a
// field the document declares binary (`format: binary`, or 3.1's `contentMediaType`) is taken as base64 and sent as
// a file part of its decoded bytes.

/** How a body is sent. */
export type BodyKind = "json" | "text" | "form" | "multipart";

/** Where an operation's body goes, and how its fields are written. */
export interface Body {
  /** Its property in the tool's input. */
  readonly key: string;
  readonly mediaType: string;
  readonly kind: BodyKind;
  /** A form field's style, or `json` when its encoding's contentType says so. */
  readonly encoding: ReadonlyMap<string, { style: Style; explode: boolean } | "json">;
  /** Multipart fields taken as base64 and sent as file parts. */
  readonly binary: ReadonlySet<string>;
}

export function isJson(mediaType: string): boolean {
  const type = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || type.endsWith("+json");
}

/** The kind a media type is sent as, if it is one this package sends. */
export function kindOf(mediaType: string): BodyKind | undefined {
  const type = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (isJson(type)) return "json";
  if (type.startsWith("text/")) return "text";
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type === "multipart/form-data") return "multipart";
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isBinary(schema: unknown): boolean {
  return isObject(schema) && (schema.format === "binary" || typeof schema.contentMediaType === "string");
}

/** A body's fields read from its media type object; `binary` names the fields whose input schema becomes base64. */
export function readBody(key: string, mediaType: string, media: Record<string, unknown>): Body | string {
  const kind = kindOf(mediaType) as BodyKind;
  const encoding = new Map<string, { style: Style; explode: boolean } | "json">();
  const binary = new Set<string>();
  const schema = media.schema;
  if (kind === "form" || kind === "multipart") {
    const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      if (kind === "multipart" && (isBinary(property) || (isObject(property) && isBinary(property.items)))) {
        binary.add(name);
      }
    }
    const encodings = isObject(media.encoding) ? media.encoding : {};
    for (const [name, entry] of Object.entries(encodings)) {
      if (!isObject(entry)) continue;
      if (typeof entry.contentType === "string" && isJson(entry.contentType)) encoding.set(name, "json");
      else if (kind === "form") {
        const style = styleOf("query", entry.style, entry.explode);
        if (typeof style === "string") return `its body's field "${name}": ${style}`;
        encoding.set(name, style);
      }
    }
  }
  return { key, mediaType, kind, encoding, binary };
}

/** The base64 input schema of a binary multipart field (or an array of them). */
export function binarySchema(schema: Record<string, unknown>): Record<string, unknown> {
  const file = { type: "string", contentEncoding: "base64", description: "The file's bytes, base64-encoded" };
  return schema.type === "array" ? { type: "array", items: file } : file;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The body to send, with its content type (none for multipart: fetch writes it with the boundary); or why not. */
export function writeBody(body: Body, value: unknown): { body: string | FormData; type?: string } | string {
  if (body.kind === "json") return { body: JSON.stringify(value), type: body.mediaType };
  if (body.kind === "text")
    return { body: typeof value === "string" ? value : JSON.stringify(value), type: body.mediaType };
  if (!isObject(value)) return `the body "${body.key}" must be an object of fields`;
  const fields = Object.entries(value).filter(([, item]) => item !== undefined && item !== null);
  if (body.kind === "form") {
    const pairs: string[] = [];
    for (const [name, item] of fields) {
      const encoding = body.encoding.get(name) ?? { style: "form" as const, explode: true };
      if (encoding === "json") pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(JSON.stringify(item))}`);
      else {
        const written = queryPairs(name, encoding.style, encoding.explode, item);
        if (!Array.isArray(written)) return `the body's field ${written.error.replace(/^query parameter /, "")}`;
        pairs.push(...written);
      }
    }
    return { body: pairs.join("&"), type: "application/x-www-form-urlencoded" };
  }
  const form = new FormData();
  for (const [name, item] of fields) {
    for (const each of Array.isArray(item) ? item : [item]) {
      if (body.binary.has(name)) {
        if (typeof each !== "string" || !BASE64.test(each)) return `the body's field "${name}" must be base64`;
        form.append(name, new Blob([Buffer.from(each, "base64")], { type: "application/octet-stream" }), name);
      } else form.append(name, typeof each === "object" ? JSON.stringify(each) : String(each));
    }
  }
  return { body: form };
}
