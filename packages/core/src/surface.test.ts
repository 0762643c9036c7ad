import { describe, expect, it } from "vitest";

// Every export is a promise: a name joins or leaves an entry only by changing these lists on purpose.
const SURFACE: Record<string, { file: string; values: string[]; types: string[] }> = {
  "@toolsmith/core": {
    file: "./index.ts",
    values: [
      "ClientError",
      "Connection",
      "DefinitionError",
      "ErrorCode",
      "HANDSHAKE_VERSIONS",
      "LATEST_HANDSHAKE_VERSION",
      "LATEST_STATELESS_VERSION",
      "LOG_LEVELS",
      "McpError",
      "MetaKey",
      "STATELESS_VERSIONS",
      "audio",
      "createServer",
      "definePrompt",
      "defineResource",
      "defineResourceTemplate",
      "defineTool",
      "embeddedResource",
      "errorLine",
      "errorResult",
      "featuresOf",
      "httpStatusOf",
      "idText",
      "image",
      "isLogLevel",
      "isMcpError",
      "levelPasses",
      "registerSchemaAdapter",
      "resourceLink",
      "text",
      "textLogger",
      "toServer",
    ],
    types: [
      "Annotations",
      "AnySchema",
      "AudioContent",
      "AuthInfo",
      "BlobResourceContents",
      "CacheHint",
      "CallToolResult",
      "ClientLog",
      "Completer",
      "Completion",
      "ConnectOptions",
      "ContentBlock",
      "ElicitForm",
      "ElicitRawForm",
      "ElicitResult",
      "ElicitUrl",
      "EmbeddedResource",
      "Era",
      "ErrorReport",
      "GetPromptResult",
      "Guard",
      "HandshakeVersion",
      "Icon",
      "ImageContent",
      "Implementation",
      "Infer",
      "InferInput",
      "InputSchema",
      "JsonRpcError",
      "JsonRpcErrorObject",
      "JsonRpcMessage",
      "JsonRpcNotification",
      "JsonRpcRequest",
      "JsonRpcResponse",
      "JsonRpcSuccess",
      "LogData",
      "LogEntry",
      "LogLevel",
      "LogMethod",
      "Logger",
      "MaybePromise",
      "Middleware",
      "Operation",
      "OperationKind",
      "Phase",
      "Prompt",
      "PromptArgument",
      "PromptDefinition",
      "PromptMessage",
      "ProtocolVersion",
      "RawShape",
      "ReadResourceResult",
      "ReceiveOptions",
      "Registered",
      "RegisteredKind",
      "RequestContext",
      "RequestId",
      "Resource",
      "ResourceContents",
      "ResourceDefinition",
      "ResourceLink",
      "ResourceTemplate",
      "ResourceTemplateDefinition",
      "RevisionFeatures",
      "Root",
      "Round",
      "Route",
      "SampleRequest",
      "SampleResult",
      "SchemaAdapter",
      "Servable",
      "Server",
      "ServerCapabilities",
      "ServerOptions",
      "StatelessVersion",
      "StaticResourceDefinition",
      "TemplateArgs",
      "TextContent",
      "TextResourceContents",
      "Tool",
      "ToolAnnotations",
      "ToolDefinition",
      "ValidationIssue",
    ],
  },
  "@toolsmith/core/testing": {
    file: "./testing/index.ts",
    values: ["createTestClient"],
    types: ["ClientHandler", "Exchange", "TestClient", "TestClientOptions", "TestSubscription", "WireRecord"],
  },
  "@toolsmith/core/internal": {
    file: "./internal.ts",
    values: ["isPlainObject", "isUriTemplate", "keyOf", "rawBatchIds", "zodV4Adapter"],
    types: [],
  },
  "@toolsmith/core/middleware": {
    file: "./middleware/kit/index.ts",
    values: ["RATE_LIMITED", "TimeoutError", "audit", "callerOf", "principalOf", "rateLimit", "requestLog", "timeout"],
    types: ["AuditOptions", "AuditRecord", "Outcome", "RateLimitOptions", "RequestLogLine"],
  },
};

/** Every name an entry's `export { … } from` lines declare, values and types alike (types leave no runtime trace). */
function declared(source: string): string[] {
  const names: string[] = [];
  for (const [, block] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from/g)) {
    for (const part of block!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "");
      if (name !== "") names.push(name);
    }
  }
  return names.sort();
}

describe("the public surface", () => {
  for (const [entry, { file, values, types }] of Object.entries(SURFACE)) {
    it(`${entry} exports exactly its listed values`, async () => {
      const module = (await import(/* @vite-ignore */ file)) as object;
      expect(Object.keys(module).sort()).toEqual([...values].sort());
    });

    it(`${entry} declares exactly its listed values and types`, async () => {
      // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
      const raw = `${file}?raw`;
      const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
      expect(declared(source)).toEqual([...values, ...types].sort());
    });
  }
});
