import "./polyfills.js";

export type {
  CompleteMethod,
  GuardMethod,
  HostOf,
  ListMethod,
  NamedMethod,
  ToolsmithDecorator,
} from "./decorator-types.js";
export {
  type Args,
  type LegacyToolParams,
  type PromptParams,
  type PromptResult,
  prompt,
  type ResourceParams,
  resource,
  skill,
  type ToolParams,
  type ToolResult,
  tool,
} from "./decorators.js";
export { McpServer, type McpServerOptions } from "./mcp-server.js";
export type {
  CompleteOption,
  GuardOption,
  PromptOptions,
  ResourceOptions,
  SkillFiles,
  SkillOptions,
  ToolOptions,
} from "./registry.js";
export { type SchemaClass, type SchemaInstance, schemaClass } from "./schema-class.js";
export type { IsTemplate, TemplateVariables } from "./template-types.js";
export { use } from "./use.js";
