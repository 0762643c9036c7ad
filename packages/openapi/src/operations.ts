import { type Body, binarySchema, isJson, kindOf, readBody } from "./body.js";
import { type Conversion, convertSchema, type SchemaBounds } from "./schema.js";
import { type Style, styleOf } from "./serialize.js";

// The operations of a dereferenced document, each read once into what a tool needs: its name, description, input
// (parameters and body as one object) and output (the success response's JSON), and how to make its request.

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** An HTTP method as OpenAPI names it. */
export type Method = (typeof METHODS)[number];

/** Where one parameter goes in the request. */
export interface Placement {
  readonly in: "path" | "query" | "header" | "cookie";
  /** The parameter's name in the request (the property's may differ, when two share a name). */
  readonly name: string;
  /** How its value is written (OpenAPI's `style` and `explode`, or their defaults for its place). */
  readonly style: Style;
  readonly explode: boolean;
}

/** One of the document's security requirements: each scheme it names must be met. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** One operation, ready to be a tool. */
export interface Operation {
  /** `operationId`, or `METHOD /path` when it has none: how overrides and errors name it. */
  readonly id: string;
  readonly method: Method;
  readonly path: string;
  readonly tags: readonly string[];
  name: string;
  description: string;
  readonly input: Record<string, unknown>;
  /** The tool's output schema (an object; a JSON value of another type is wrapped as `{ result }`). */
  readonly output: Record<string, unknown> | undefined;
  readonly wrapped: boolean;
  /** Each parameter's input property, and where it goes. */
  readonly placements: ReadonlyMap<string, Placement>;
  /** The request body, when the operation takes one this package sends. */
  readonly body: Body | undefined;
  /** Its security requirements (its own, else the document's), any one of which is met; none: undefined. */
  readonly security: readonly SecurityRequirement[] | undefined;
  /** Its own `servers` (or its path's), which take the document's place for it. */
  readonly servers: readonly unknown[] | undefined;
  /** What was cut from its schemas to keep them bounded (empty when nothing was). */
  readonly cuts: readonly string[];
}

/** An operation left out, and why. */
export interface Skipped {
  readonly id: string;
  readonly reason: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
// Header parameters OpenAPI says are ignored: they come from the request itself, never from the model.
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool name from an operationId: characters outside `[A-Za-z0-9_.-]` become `_`; past 64, a hash keeps it apart. */
export function toolName(id: string): string {
  let name = id.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "");
  if (name === "") name = "operation";
  if (NAME.test(name)) return name;
  const hash = fnv1a(id).toString(16).padStart(8, "0");
  return `${name.slice(0, 55)}_${hash}`;
}

// FNV-1a, 32 bits: a short, stable mark of the whole operationId.
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Read one operation; a string when it cannot be a tool (the reason). */
export function readOperation(
  path: string,
  method: Method,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
  bounds: SchemaBounds,
  security: unknown,
): Operation | string {
  // OpenAPI requires it: a path that did not would have its first value written into the base URL's authority.
  if (!path.startsWith("/")) return `its path ${JSON.stringify(path)} does not begin with "/"`;
  const id = typeof operation.operationId === "string" ? operation.operationId : `${method.toUpperCase()} ${path}`;
  const input = { conversion: { nodes: 0, cuts: new Set<string>() } as Conversion };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const placements = new Map<string, Placement>();
  // Path-level parameters, then the operation's, which replace any with the same name and place.
  const parameters = new Map<string, Record<string, unknown>>();
  for (const list of [item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const parameter of list) {
      if (isObject(parameter) && typeof parameter.name === "string" && typeof parameter.in === "string") {
        parameters.set(`${parameter.in}:${parameter.name}`, parameter);
      }
    }
  }
  for (const parameter of parameters.values()) {
    const where = parameter.in as Placement["in"];
    const name = parameter.name as string;
    if (!["path", "query", "header", "cookie"].includes(where)) continue;
    if (where === "header" && IGNORED_HEADERS.has(name.toLowerCase())) continue;
    const key = unusedKey(properties, name, `${where}:${name}`);
    const schema = isObject(parameter.schema) ? parameter.schema : parameterContent(parameter);
    const converted = convertSchema(schema ?? {}, bounds, input.conversion, 1);
    const property = typeof converted === "boolean" ? {} : converted;
    if (typeof parameter.description === "string" && property.description === undefined) {
      property.description = parameter.description;
    }
    properties[key] = property;
    if (parameter.required === true || where === "path") required.push(key);
    const style = styleOf(where, parameter.style, parameter.explode);
    if (typeof style === "string") return `its ${where} parameter "${name}": ${style}`;
    placements.set(key, { in: where, name, ...style });
  }
  let body: Body | undefined;
  const requestBody = isObject(operation.requestBody) ? operation.requestBody : undefined;
  if (requestBody && isObject(requestBody.content)) {
    const types = Object.keys(requestBody.content);
    // JSON first, then a form, multipart and text: the first the API takes that carries structure.
    const order = ["json", "form", "multipart", "text"];
    const mediaType = order.map((kind) => types.find((type) => kindOf(type) === kind)).find((type) => type);
    if (mediaType === undefined) {
      if (requestBody.required === true) {
        return `its request body is ${types.join(", ") || "of no media type"} (only JSON, forms, multipart and text are sent)`;
      }
    } else {
      const media = isObject(requestBody.content[mediaType]) ? requestBody.content[mediaType] : {};
      const key = unusedKey(properties, "body", "requestBody");
      const read = readBody(key, mediaType, media);
      if (typeof read === "string") return read;
      body = read;
      const schema = media.schema !== undefined ? media.schema : {};
      const converted = read.kind === "text" ? { type: "string" } : convertSchema(schema, bounds, input.conversion, 1);
      if (read.binary.size > 0 && isObject(converted) && isObject(converted.properties) && isObject(schema)) {
        const fields = schema.properties as Record<string, Record<string, unknown>>;
        for (const name of read.binary) converted.properties[name] = binarySchema(fields[name] ?? {});
      }
      properties[key] = converted;
      if (typeof requestBody.description === "string" && isObject(converted) && converted.description === undefined) {
        converted.description = requestBody.description;
      }
      if (requestBody.required === true) required.push(key);
    }
  }
  const inputSchema: Record<string, unknown> = { type: "object", properties };
  if (required.length > 0) inputSchema.required = required;
  const output = { conversion: { nodes: 0, cuts: new Set<string>() } as Conversion };
  const success = successSchema(operation.responses);
  let outputSchema: Record<string, unknown> | undefined;
  let wrapped = false;
  if (success !== undefined) {
    const converted = convertSchema(success, bounds, output.conversion);
    if (isObject(converted) && converted.type === "object") outputSchema = converted;
    else {
      outputSchema = { type: "object", properties: { result: converted }, required: ["result"] };
      wrapped = true;
    }
  }
  const cuts = [...input.conversion.cuts, ...output.conversion.cuts];
  return {
    id,
    method,
    path,
    tags: Array.isArray(operation.tags) ? operation.tags.filter((tag) => typeof tag === "string") : [],
    name: toolName(id),
    description: describe(operation, method, path),
    input: inputSchema,
    output: outputSchema,
    wrapped,
    placements,
    body,
    security: securityOf(operation.security ?? security),
    servers: serversOf(operation.servers) ?? serversOf(item.servers),
    cuts: [...new Set(cuts)],
  };
}

function securityOf(value: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(isObject)
    .map((requirement) =>
      Object.fromEntries(
        Object.entries(requirement).map(([scheme, scopes]) => [
          scheme,
          Array.isArray(scopes) ? scopes.filter((scope) => typeof scope === "string") : [],
        ]),
      ),
    );
}

function serversOf(value: unknown): unknown[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

// The first of the names no property has yet (an own property: `constructor` is free), else the last numbered.
function unusedKey(properties: Record<string, unknown>, ...names: string[]): string {
  const free = names.find((name) => !Object.hasOwn(properties, name));
  if (free !== undefined) return free;
  let n = 2;
  while (Object.hasOwn(properties, `${names.at(-1)}_${n}`)) n++;
  return `${names.at(-1)}_${n}`;
}

// A parameter given by `content` instead of `schema` (one media type): its schema.
function parameterContent(parameter: Record<string, unknown>): unknown {
  if (!isObject(parameter.content)) return undefined;
  const media = Object.values(parameter.content)[0];
  return isObject(media) ? media.schema : undefined;
}

// The one declared 2xx response's JSON schema; none when several 2xx answers differ or it is not JSON, as the
// structured content must then fit every answer.
function successSchema(responses: unknown): unknown {
  if (!isObject(responses)) return undefined;
  const codes = Object.keys(responses).filter((code) => /^2(\d\d|XX)$/i.test(code));
  if (codes.length !== 1) return undefined;
  const response = responses[codes[0] as string];
  if (!isObject(response) || !isObject(response.content)) return undefined;
  const type = Object.keys(response.content).find(isJson);
  const media = type === undefined ? undefined : response.content[type];
  return isObject(media) && media.schema !== undefined ? media.schema : undefined;
}

function describe(operation: Record<string, unknown>, method: Method, path: string): string {
  const summary = typeof operation.summary === "string" ? operation.summary.trim() : "";
  const description = typeof operation.description === "string" ? operation.description.trim() : "";
  const text = [summary, description].filter((part, index, all) => part !== "" && all.indexOf(part) === index);
  return text.length > 0 ? text.join("\n\n") : `${method.toUpperCase()} ${path}`;
}
