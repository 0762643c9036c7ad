/**
 * `@toolsmith/core`: what a server author needs: createServer and its options, the definitions and their handles,
 * errors, the request context, guards, schemas, content helpers, the logger, MCP's wire types and the JSON-RPC types
 * (the test client records them), and the latest version of each era (a server's tests run both). Transport authors
 * add `@toolsmith/core/transport`, engine authors `@toolsmith/core/engine`, middleware authors
 * `@toolsmith/core/middleware`; the test client is `@toolsmith/core/testing`. Every export is a promise:
 * src/surface.test.ts pins the list.
 */

export type {
  ElicitForm,
  ElicitRawForm,
  ElicitResult,
  ElicitUrl,
  Root,
  SampleRequest,
  SampleResult,
} from "./context/ask.js";
export type { ClientLog, LogData, LogMethod } from "./context/client-log.js";
export type { AuthInfo, Era, RequestContext } from "./context/context.js";
export { KEEP_BOUNDS } from "./context/keep.js";
export { type ErrorReport, type LogEntry, type Logger, textLogger } from "./context/logger.js";
export type {
  Store,
  StoreChange,
  StoreListOptions,
  StorePage,
  StoreValue,
  StoreWatch,
} from "./context/store.js";
export type { ContextStore } from "./context/store-scopes.js";
export type { TraceContext } from "./context/trace.js";
export type { CacheHint } from "./protocol/cache-hints.js";
export { isLogLevel, LOG_LEVELS, type LogLevel, levelPasses } from "./protocol/log-levels.js";
export {
  audio,
  embeddedResource,
  errorResult,
  image,
  resourceLink,
  text,
} from "./protocol/results.js";
export { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION, type ProtocolVersion } from "./protocol/versions.js";
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
  type TemplateStoreKey,
  type ToolDefinition,
} from "./registry/definitions.js";
export type { Guard } from "./registry/guards.js";
export type { Registered, RegisteredKind } from "./registry/router.js";
export { SKILL_LIMITS, type SkillDefinition, type SkillEntry } from "./registry/skill-compile.js";
export { type RegisteredSkill, SKILLS_EXTENSION } from "./registry/skills.js";
export type { ToolRanking } from "./registry/tool-rank.js";
export type { ToolSearchOptions } from "./registry/tool-search.js";
export { registerSchemaAdapter } from "./schema/adapters.js";
export type {
  AnySchema,
  Infer,
  InferInput,
  InputSchema,
  RawShape,
  SchemaAdapter,
  ValidationIssue,
} from "./schema/schema-adapter.js";
export type { StandardJsonSchema, StandardSchema } from "./schema/standard-schema.js";
export type { ServerOptions } from "./server/options.js";
export type { Server } from "./server/servable.js";
export { createServer } from "./server/server.js";
export { ClientError, DefinitionError, isMcpError, McpError } from "./wire/errors.js";
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
} from "./wire/json-rpc.js";
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
