import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse as parseYaml } from "yaml";
import { OpenApiError } from "./errors.js";
import { METHODS, type Method, type Operation, readOperation, type Skipped } from "./operations.js";
import { DEFAULT_BOUNDS, EXTERNAL_REF, type SchemaBounds } from "./schema.js";
import { type ServerObject, serverObjects } from "./servers.js";

export { OpenApiError };

// A document (an object, or JSON or YAML text) dereferenced by swagger-parser, external references resolved only
// when allowed, then read operation by operation through the filters and overrides.

/** What to take from the document, and how to change each operation's tool. */
export interface OperationFilters {
  /** Only operations with one of these tags. */
  readonly tags?: readonly string[];
  /** Only operations whose path is one of these, or starts with one that ends in `*`. */
  readonly paths?: readonly string[];
  /** Only these methods (lower or upper case). */
  readonly methods?: readonly string[];
  /** By operationId (or `"GET /path"` for one without): a tool's name or description, or `hide: true`. */
  readonly overrides?: Readonly<Record<string, OperationOverride>>;
  /** Bounds of each produced schema (default: 12 levels deep, 4,000 nodes). */
  readonly schemaBounds?: Partial<SchemaBounds>;
  /**
   * Fetch `$ref`s to http(s) URLs (default false). With neither this nor `externalFileRefs`, no external `$ref` is
   * read and what it names is `{}`; with one of them, a `$ref` the other would allow is an `OpenApiError` naming it.
   */
  readonly externalRefs?: boolean;
  /** Read `$ref`s to local files (default false): its own opt-in, apart from `externalRefs`. */
  readonly externalFileRefs?: boolean;
  /** With `externalRefs`, also fetch from loopback and private addresses (default false: the parser refuses them). */
  readonly externalRefsPrivateHosts?: boolean;
  /** Where the document was read from: relative `$ref`s (and server URLs) are read against it. */
  readonly documentUrl?: string;
}

/** A change to one operation's tool. */
export interface OperationOverride {
  readonly name?: string;
  readonly description?: string;
  readonly hide?: boolean;
}

/** A document read: its operations as tools, and those left out. */
export interface LoadedDocument {
  readonly title: string;
  readonly version: string;
  /** The document's servers, as it gives them. */
  readonly servers: readonly ServerObject[];
  /** The document's security schemes (`components.securitySchemes`), by name. */
  readonly securitySchemes: Readonly<Record<string, unknown>>;
  readonly operations: readonly Operation[];
  readonly skipped: readonly Skipped[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) return JSON.parse(text);
  // YAML's own bound on aliases keeps a "billion laughs" document from expanding without end.
  return parseYaml(text, { maxAliasCount: 1000 });
}

/** Parse and dereference `document`, then read its operations. */
export async function loadDocument(document: unknown, options: OperationFilters = {}): Promise<LoadedDocument> {
  let source: unknown;
  try {
    source = typeof document === "string" ? parseText(document) : structuredClone(document);
  } catch (error) {
    throw new OpenApiError(`the OpenAPI document is neither JSON nor YAML: ${(error as Error).message}`);
  }
  if (!isObject(source) || typeof source.openapi !== "string" || !/^3\.[01]\.\d+/.test(source.openapi)) {
    const version = isObject(source) ? (source.openapi ?? source.swagger) : undefined;
    throw new OpenApiError(`only OpenAPI 3.0 and 3.1 documents are taken (this one says ${JSON.stringify(version)})`);
  }
  const http = options.externalRefs === true;
  const file = options.externalFileRefs === true;
  const base = options.documentUrl ?? pathToFileURL(`${process.cwd()}/`).href;
  checkExternalRefs(source, base, http, file);
  const written = new Map([...serverLists(source)].map(([place, list]) => [place, list.map((server) => server.url)]));
  let api: Record<string, unknown>;
  try {
    api = (await SwaggerParser.dereference(base, source as never, {
      resolve: {
        external: http || file,
        // The parser's own file resolver when allowed (`true` would replace it, and read nothing).
        ...(file ? {} : { file: false }),
        http: http ? { timeout: 10_000, safeUrlResolver: options.externalRefsPrivateHosts !== true } : false,
      },
      dereference: { circular: true },
    })) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new OpenApiError(`the OpenAPI document could not be dereferenced: ${(error as Error).message}`);
  }
  // The parser rewrites a relative server against an http(s) base, dropping its port: put back as written, to be
  // read against documentUrl when the base URL is worked out.
  for (const [place, list] of serverLists(api)) {
    const urls = written.get(place);
    if (urls) for (const [i, server] of list.entries()) server.url = urls[i];
  }
  return readDocument(api, options);
}

// Each `$ref` to another file or URL checked before the dereferencer sees it (an explicit stack: a deeply nested
// document cannot exhaust the call stack). None allowed: moved aside, so it is never asked for. One allowed: a `$ref`
// of the other kind (or of neither, `ftp:` say) is refused, naming it and what would allow it.
function checkExternalRefs(root: unknown, base: string, http: boolean, file: boolean): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isObject(node)) {
      if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) {
        if (!http && !file) {
          node[EXTERNAL_REF] = node.$ref;
          delete node.$ref;
        } else {
          let protocol: string;
          try {
            protocol = new URL(node.$ref, base).protocol;
          } catch {
            protocol = "";
          }
          const web = protocol === "http:" || protocol === "https:";
          if (web ? !http : protocol !== "file:" || !file) {
            const needed = web ? "externalRefs" : protocol === "file:" ? "externalFileRefs" : undefined;
            throw new OpenApiError(
              `the $ref ${JSON.stringify(node.$ref)} is not read: ${needed ? `it needs ${needed}` : "only http(s) and file references are"}`,
            );
          }
        }
      }
      for (const value of Object.values(node)) if (typeof value === "object" && value !== null) stack.push(value);
    }
  }
}

// Each servers list of the document (its own, each path's, each operation's), by place.
function serverLists(root: Record<string, unknown>): Map<string, Record<string, unknown>[]> {
  const found = new Map<string, Record<string, unknown>[]>();
  const visit = (place: string, holder: unknown) => {
    if (isObject(holder) && Array.isArray(holder.servers)) found.set(place, holder.servers.filter(isObject));
  };
  visit("", root);
  for (const [path, item] of Object.entries(isObject(root.paths) ? root.paths : {})) {
    visit(path, item);
    for (const method of METHODS) visit(`${path} ${method}`, isObject(item) ? item[method] : undefined);
  }
  return found;
}

function readDocument(api: Record<string, unknown>, options: OperationFilters): LoadedDocument {
  const bounds: SchemaBounds = { ...DEFAULT_BOUNDS, ...options.schemaBounds };
  const methods = options.methods?.map((method) => method.toLowerCase());
  const operations: Operation[] = [];
  const skipped: Skipped[] = [];
  const byName = new Map<string, Operation>();
  const overrides = new Map(Object.entries(options.overrides ?? {}));
  const paths = isObject(api.paths) ? api.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item) || !pathMatches(path, options.paths)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      if (methods && !methods.includes(method)) continue;
      if (
        options.tags &&
        !(Array.isArray(operation.tags) && operation.tags.some((tag) => options.tags?.includes(tag)))
      ) {
        continue;
      }
      const read = readOperation(path, method as Method, item, operation, bounds, api.security);
      const id = typeof read === "string" ? idOf(operation, method, path) : read.id;
      const override = overrides.get(id);
      overrides.delete(id);
      if (override?.hide) continue;
      if (typeof read === "string") {
        skipped.push({ id, reason: read });
        continue;
      }
      if (override?.name !== undefined) read.name = override.name;
      if (override?.description !== undefined) read.description = override.description;
      const other = byName.get(read.name);
      if (other) {
        throw new OpenApiError(
          `operations "${other.id}" and "${read.id}" both become the tool "${read.name}": give one another name (overrides: { "${read.id}": { name: "…" } })`,
        );
      }
      byName.set(read.name, read);
      operations.push(read);
    }
  }
  if (overrides.size > 0) {
    const names = [...overrides.keys()].map((id) => `"${id}"`).join(", ");
    throw new OpenApiError(`overrides name operations the document does not have (after the filters): ${names}`);
  }
  const info = isObject(api.info) ? api.info : {};
  const components = isObject(api.components) ? api.components : {};
  return {
    title: typeof info.title === "string" ? info.title : "openapi",
    version: typeof info.version === "string" ? info.version : "0.0.0",
    servers: serverObjects(api.servers),
    securitySchemes: isObject(components.securitySchemes) ? components.securitySchemes : {},
    operations,
    skipped,
  };
}

function idOf(operation: Record<string, unknown>, method: string, path: string): string {
  return typeof operation.operationId === "string" ? operation.operationId : `${method.toUpperCase()} ${path}`;
}

function pathMatches(path: string, patterns: readonly string[] | undefined): boolean {
  if (!patterns) return true;
  return patterns.some((pattern) => (pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern));
}
