import "./polyfills.js";

export {
  type Args,
  type CompleteMethod,
  type GuardMethod,
  type HostOf,
  type LegacyToolParams,
  type ListMethod,
  type NamedMethod,
  type PromptParams,
  type PromptResult,
  prompt,
  type ResourceParams,
  resource,
  type ToolParams,
  type ToolResult,
  type ToolsmithDecorator,
  tool,
} from "./decorators.js";
export { McpServer, type McpServerOptions } from "./mcp-server.js";
export type { CompleteOption, GuardOption, PromptOptions, ResourceOptions, ToolOptions } from "./registry.js";
export { type SchemaClass, type SchemaInstance, schemaClass } from "./schema-class.js";
export type { IsTemplate, TemplateVariables } from "./template-types.js";
export { use } from "./use.js";
