/**
 * `@toolsmith/core`: what a server author needs (createServer, definitions, errors, the request context, middleware,
 * guards, handles, schemas, content helpers, wire types) and what a transport author needs (Connection, Route,
 * errorLine, idText, versions, MetaKey). The test client is `@toolsmith/core/testing`; sibling packages' helpers are
 * `@toolsmith/core/internal`. Every export is a promise: src/surface.test.ts pins the list.
 */
export type {
  ElicitForm,
  ElicitRawForm,
  ElicitResult,
  ElicitUrl,
  Root,
  Round,
  SampleRequest,
  SampleResult,
} from "./ask.js";
export { Connection, type ConnectOptions, type ReceiveOptions, type Route } from "./connection.js";
export type {
  AuthInfo,
  ClientLog,
  Era,
  LogData,
  LogMethod,
  RequestContext,
} from "./context.js";
export {
  type Completer,
  type Completion,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type Guard,
  type MaybePromise,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type StaticResourceDefinition,
  type TemplateArgs,
  type ToolDefinition,
} from "./definitions.js";
export type { Phase } from "./era.js";
export { ClientError, DefinitionError, isMcpError, McpError } from "./errors.js";
export {
  ErrorCode,
  errorLine,
  httpStatusOf,
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
  type ErrorReport,
  isLogLevel,
  LOG_LEVELS,
  type LogEntry,
  type Logger,
  type LogLevel,
  levelPasses,
  textLogger,
} from "./logger.js";
export type { Middleware, Operation, OperationKind } from "./middleware.js";
export {
  HANDSHAKE_VERSIONS,
  type HandshakeVersion,
  LATEST_HANDSHAKE_VERSION,
  LATEST_STATELESS_VERSION,
  MetaKey,
  type ProtocolVersion,
  STATELESS_VERSIONS,
  type StatelessVersion,
} from "./protocol.js";
export { idText } from "./raw-id.js";
export {
  audio,
  embeddedResource,
  errorResult,
  image,
  resourceLink,
  text,
} from "./results.js";
export { featuresOf, type RevisionFeatures } from "./revision.js";
export type { Registered, RegisteredKind } from "./router.js";
export {
  type AnySchema,
  type Infer,
  type InferInput,
  type InputSchema,
  type RawShape,
  registerSchemaAdapter,
  type SchemaAdapter,
  type ValidationIssue,
} from "./schema-adapter.js";
export { createServer, type Servable, type Server, type ServerOptions, toServer } from "./server.js";
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
