export type { Era, RequestContext } from "./context.js";
export {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type MaybePromise,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type StaticResourceDefinition,
  type TemplateArgs,
  type ToolDefinition,
} from "./definitions.js";
export type { Phase } from "./era.js";
export { DefinitionError, isMcpError, McpError } from "./errors.js";
export {
  ErrorCode,
  type JsonRpcError,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  type RequestId,
} from "./json-rpc.js";
export {
  HANDSHAKE_VERSIONS,
  type HandshakeVersion,
  LATEST_HANDSHAKE_VERSION,
  MetaKey,
  type ProtocolVersion,
  STATELESS_VERSIONS,
  type StatelessVersion,
} from "./protocol.js";
export { errorResult, isCallToolResult, isContentBlock, text } from "./results.js";
export {
  type AnySchema,
  type CompiledSchema,
  compileSchema,
  type Infer,
  type InferInput,
  type InputSchema,
  isRawShape,
  isSchema,
  type RawShape,
  registerSchemaAdapter,
  type SchemaAdapter,
  type ValidationIssue,
  zodV4Adapter,
} from "./schema-adapter.js";
export { createServer, type ErrorReport, type Servable, type Server, type ServerOptions, toServer } from "./server.js";
export { type Reply, Session } from "./session.js";
export { createTestClient, type TestClient, type TestClientOptions, type WireRecord } from "./testing.js";
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CacheHint,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  GetPromptResult,
  Icon,
  ImageContent,
  Implementation,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceLink,
  ResourceTemplate,
  ServerCapabilities,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations,
} from "./types.js";
export {
  isUriTemplate,
  MAX_URI_LENGTH,
  parseUriTemplate,
  type UriTemplate,
  type UriVariables,
} from "./uri-template.js";
