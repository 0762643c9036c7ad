import { isPlainObject } from "@toolsmith/core/internal";

// 2026-07-28 routing headers (SEP-2243): Mcp-Method on every request, Mcp-Name on tools/call, resources/read and
// prompts/get, and Mcp-Param-{Name} for tool arguments whose schema says `x-mcp-header`. Each must agree with the
// body, or the request is refused (-32020).

const NAMED: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension routes its task requests by the task's id.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/** A header value as the client wrote it: plain, or `=?base64?…?=` (undefined unless strict base64 of UTF-8). */
export function decodeHeader(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!match) return value;
  // Strict base64: atob forgives missing padding, which SEP-2243 says to refuse.
  const encoded = match[1] as string;
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Where a tool's header-mirrored arguments are: header name (lower case) → property path. */
export type HeaderParams = readonly { header: string; path: readonly string[] }[];

const cache = new WeakMap<object, HeaderParams>();

/** The `x-mcp-header` properties of a tool's input schema, reached through `properties` keys alone. */
export function headerParams(inputSchema: Readonly<Record<string, unknown>>): HeaderParams {
  const cached = cache.get(inputSchema);
  if (cached) return cached;
  const found: { header: string; path: string[] }[] = [];
  const walk = (schema: unknown, path: string[]) => {
    if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isPlainObject(property)) continue;
      const header = property["x-mcp-header"];
      if (typeof header === "string" && header !== "")
        found.push({ header: header.toLowerCase(), path: [...path, key] });
      walk(property, [...path, key]);
    }
  };
  walk(inputSchema, []);
  cache.set(inputSchema, found);
  return found;
}

function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Why Mcp-Method or Mcp-Name disagree with the body, or undefined when they agree (they say nothing of the registry). */
export function routingMismatch(
  headers: { header(name: string): string | null },
  message: Record<string, unknown>,
): string | undefined {
  const method = message.method as string;
  const sent = headers.header("mcp-method");
  if (sent === null) return "the Mcp-Method header is missing";
  if (decodeHeader(sent) !== method)
    return `the Mcp-Method header (${sent}) does not match the body's method (${method})`;
  const field = Object.hasOwn(NAMED, method) ? NAMED[method] : undefined;
  if (field === undefined) return undefined;
  const params = isPlainObject(message.params) ? message.params : {};
  const named = headers.header("mcp-name");
  if (named === null) return `the Mcp-Name header is missing; ${method} needs it`;
  if (decodeHeader(named) !== params[field]) return `the Mcp-Name header does not match params.${field}`;
  return undefined;
}

/**
 * Why the Mcp-Param-* headers disagree with a tool's arguments, or undefined. Asked only once the tool is known to
 * be the caller's: a tool it may not use answers as one that does not exist, headers or not.
 */
export function paramMismatch(
  headers: { header(name: string): string | null },
  args: unknown,
  inputSchema: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const { header, path } of headerParams(inputSchema)) {
    const value = at(args, path);
    const mirrored = headers.header(`mcp-param-${header}`);
    if (value === undefined || value === null) {
      if (mirrored !== null) return `the Mcp-Param-${header} header is sent, but the argument ${path.join(".")} is not`;
      continue;
    }
    if (mirrored === null) return `the Mcp-Param-${header} header is missing; it mirrors argument ${path.join(".")}`;
    // Only a primitive is mirrored; anything else (which may nest too deep to turn into text) cannot match.
    if (typeof value === "object" || decodeHeader(mirrored) !== String(value)) {
      return `the Mcp-Param-${header} header does not match argument ${path.join(".")}`;
    }
  }
  return undefined;
}
