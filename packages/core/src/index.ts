/**
 * `@toolsmith/core`: what a server author needs (createServer, definitions, errors, the request context, middleware,
 * guards, handles, schemas, content helpers, wire types) and what a transport author needs (Connection, Route,
 * errorLine, idText, versions, MetaKey). The test client is `@toolsmith/core/testing`; sibling packages' helpers are
 * `@toolsmith/core/internal`. Every export is a promise: src/surface.test.ts pins the list.
 */

export type { ConnectOptions, ReceiveOptions } from "./connection/connect-options.js";
export { Connection } from "./connection/connection.js";
export type { Route } from "./connection/outlet.js";
export type {
  ElicitForm,
  ElicitRawForm,
  ElicitResult,
  ElicitUrl,
  Root,
  Round,
  SampleRequest,
  SampleResult,
} from "./context/ask.js";
export type { ClientLog, LogData, LogMethod } from "./context/client-log.js";
export type { AuthInfo, Era, RequestContext } from "./context/context.js";
export { type ErrorReport, type LogEntry, type Logger, textLogger } from "./context/logger.js";
export type { TraceContext } from "./context/trace.js";
export {
  type Engine,
  type EngineLifecycle,
  type EngineOwner,
  EngineUnavailable,
  type EventLog,
  type InitializedSession,
  LeaseLost,
  type RequestLeases,
  type RunningRequest,
  type ServerBus,
  type ServerSignal,
  type SessionChange,
  type SessionChannel,
  type SessionLimits,
  type SessionRecord,
  type SessionSignal,
  type SessionStore,
  type StoredEvent,
  type StoredPrincipal,
  type TaskChange,
  type TaskInputRequest,
  type TaskLimit,
  type TaskRecord,
  type TaskSignal,
  type TaskStatus,
  type TaskStore,
  type Unfollow,
} from "./engine/engine.js";
export { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from "./engine/memory.js";
export { SESSION_BOUNDS } from "./engine/session-bounds.js";
export type { Middleware, Operation, OperationKind } from "./middleware/compose.js";
export type { CacheHint } from "./protocol/cache-hints.js";
export type { Phase } from "./protocol/era.js";
export { httpStatusOf } from "./protocol/http-status.js";
export { isLogLevel, LOG_LEVELS, type LogLevel, levelPasses } from "./protocol/log-levels.js";
export {
  audio,
  embeddedResource,
  errorResult,
  image,
  resourceLink,
  text,
} from "./protocol/results.js";
export { featuresOf, type RevisionFeatures } from "./protocol/revision.js";
export {
  HANDSHAKE_VERSIONS,
  type HandshakeVersion,
  LATEST_HANDSHAKE_VERSION,
  LATEST_STATELESS_VERSION,
  MetaKey,
  type ProtocolVersion,
  STATELESS_VERSIONS,
  type StatelessVersion,
} from "./protocol/versions.js";
export type { ToolUi, UiCsp, UiPermissions } from "./registry/app-options.js";
export {
  type Completer,
  type Completion,
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
} from "./registry/definitions.js";
export type { Guard } from "./registry/guards.js";
export type { Registered, RegisteredKind } from "./registry/router.js";
export {
  type AnySchema,
  type Infer,
  type InferInput,
  type InputSchema,
  type RawShape,
  registerSchemaAdapter,
  type SchemaAdapter,
  type ValidationIssue,
} from "./schema/schema-adapter.js";
export type { StandardJsonSchema, StandardSchema } from "./schema/standard-schema.js";
export type { ServerOptions } from "./server/options.js";
export { type Servable, type Server, toServer } from "./server/servable.js";
export { createServer } from "./server/server.js";
export { ClientError, DefinitionError, isMcpError, McpError } from "./wire/errors.js";
export {
  ErrorCode,
  errorLine,
  type JsonRpcError,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  type RequestId,
} from "./wire/json-rpc.js";
export { idText } from "./wire/raw-id.js";
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
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
} from "./wire/types.js";
