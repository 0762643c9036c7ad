import { createServer, type Server, type ToolDefinition } from "@toolsmith/core";
import { type JsonSchema, jsonSchema } from "@toolsmith/core/json-schema";
import { type CallOptions, callOperation } from "./call.js";
import { type LoadedDocument, loadDocument, OpenApiError, type OperationFilters } from "./load.js";
import type { Operation } from "./operations.js";

// The tools of a document: one per operation, its schemas through core's raw JSON Schema path, compiled by Ajv on a
// tool's first call (a 1,000-operation document would otherwise compile every schema before serving one).

/** A document and how to call it. */
export interface OpenApiOptions extends OperationFilters, Omit<CallOptions, "baseUrl"> {
  /** The document: an object, or its JSON or YAML text. */
  readonly document: unknown;
  /** Where the API is (default: the document's first server, when it is an absolute http(s) URL). */
  readonly baseUrl?: string;
  /** Declare output schemas from success responses (default true). */
  readonly outputSchemas?: boolean;
}

/** The tools made from a document, with what was left out. */
export interface OpenApiTools {
  readonly tools: readonly ToolDefinition[];
  readonly document: LoadedDocument;
}

// The raw JSON Schema path's vendor, read from core rather than written here.
const VENDOR = jsonSchema({ type: "object" })["~standard"].vendor;

// A raw JSON Schema that core lists as given and validates through `jsonSchema` once first asked to; one core
// refuses then is a failure of that tool's calls the model reads, not of the server.
function lazySchema(schema: Record<string, unknown>): JsonSchema {
  let built: JsonSchema | undefined;
  let refused: string | undefined;
  const listed = () => structuredClone(schema);
  return {
    "~standard": {
      version: 1,
      vendor: VENDOR,
      validate: (value) => {
        if (!built && refused === undefined) {
          built = jsonSchema(schema);
          try {
            built["~standard"].jsonSchema.input({ target: "draft-2020-12" });
          } catch (error) {
            refused = (error as Error).message;
          }
        }
        if (refused !== undefined)
          return { issues: [{ message: `the document's schema cannot be used: ${refused}`, path: [] }] };
        return (built as JsonSchema)["~standard"].validate(value);
      },
      jsonSchema: { input: listed, output: listed },
    },
  };
}

function baseUrlOf(options: OpenApiOptions, document: LoadedDocument): string {
  const base = options.baseUrl ?? document.servers[0];
  if (base === undefined || !/^https?:\/\//i.test(base) || base.includes("{")) {
    throw new OpenApiError(
      `no baseUrl: give one (the document's first server is ${base === undefined ? "missing" : JSON.stringify(base)}, not an absolute http(s) URL)`,
    );
  }
  // fetch refuses a URL with credentials, quoting it whole in its error: refused here, without them.
  const url = new URL(base);
  if (url.username !== "" || url.password !== "") {
    throw new OpenApiError(
      `the baseUrl ${url.host} holds credentials (user:password@), which fetch refuses: give them in headers`,
    );
  }
  return base;
}

function toolOf(operation: Operation, call: CallOptions, outputs: boolean): ToolDefinition {
  return {
    name: operation.name,
    description:
      operation.cuts.length > 0
        ? `${operation.description}\n\n(Schema shortened: ${operation.cuts.join("; ")}.)`
        : operation.description,
    input: lazySchema(operation.input) as never,
    ...(outputs && operation.output ? { output: lazySchema(operation.output) } : {}),
    annotations: {
      readOnlyHint: operation.method === "get" || operation.method === "head",
      openWorldHint: true,
      ...(operation.method === "put" || operation.method === "delete" ? { idempotentHint: true } : {}),
    },
    handler: (args: unknown, ctx) => callOperation(operation, call, args as Record<string, unknown>, ctx),
  };
}

/** Read a document into tool definitions, to register on a server of your own. */
export async function openApiTools(options: OpenApiOptions): Promise<OpenApiTools> {
  const document = await loadDocument(options.document, options);
  const call: CallOptions = { ...options, baseUrl: baseUrlOf(options, document) };
  const outputs = options.outputSchemas !== false;
  return { tools: document.operations.map((operation) => toolOf(operation, call, outputs)), document };
}

/**
 * A server whose tools are a document's operations: serve it, or mount it under a prefix in another.
 * @example
 * ```ts source="examples/openapi.ts#openApiServer"
 * const petstore = await openApiServer({ document: spec, baseUrl: "https://petstore.example/v1" });
 * const app = createServer({ name: "app", version: "1.0.0" }).mount("pets", petstore);
 * ```
 */
export async function openApiServer(options: OpenApiOptions & { readonly name?: string }): Promise<Server> {
  const { tools, document } = await openApiTools(options);
  const server = createServer({ name: options.name ?? document.title, version: document.version });
  for (const tool of tools) server.tool(tool);
  return server;
}
