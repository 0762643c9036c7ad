import { createServer, type Server, type ToolDefinition } from "@toolsmith/core";
import { type JsonSchema, jsonSchema } from "@toolsmith/core/json-schema";
import { type CallOptions, callOperation } from "./call.js";
import { type LoadedDocument, loadDocument, type OperationFilters } from "./load.js";
import type { Operation } from "./operations.js";
import { readSchemes } from "./security.js";
import { baseUrlOf, type ServerOptions, serverObjects } from "./servers.js";

// The tools of a document: one per operation, its schemas through core's raw JSON Schema path, compiled by Ajv on a
// tool's first call (a 1,000-operation document would otherwise compile every schema before serving one).

/** A document and how to call it. */
export interface OpenApiOptions extends OperationFilters, ServerOptions, Omit<CallOptions, "baseUrl" | "schemes"> {
  /** The document: an object, or its JSON or YAML text. */
  readonly document: unknown;
  /**
   * Where the API is, taken over every server the document names (default: the operation's first server, else its
   * path's, else the document's, its variables filled in and a relative URL read against `documentUrl`).
   */
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
  const schemes = readSchemes({ securitySchemes: document.securitySchemes }, options.credentials ?? {});
  const outputs = options.outputSchemas !== false;
  // Each operation's base, said at start; the document's too when no operation is left.
  if (document.operations.length === 0) baseUrlOf(document.servers, options);
  const tools = document.operations.map((operation) => {
    const servers = operation.servers ? serverObjects(operation.servers) : document.servers;
    return toolOf(operation, { ...options, baseUrl: baseUrlOf(servers, options), schemes }, outputs);
  });
  return { tools, document };
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
