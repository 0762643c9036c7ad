import "./polyfills.js";

export {
  type MethodDecorator,
  type PromptParams,
  prompt,
  type ResourceParams,
  resource,
  type ToolParams,
  tool,
} from "./decorators.js";
export { McpServer, type McpServerOptions } from "./mcp-server.js";
export type { PromptOptions, ResourceOptions, ToolOptions } from "./registry.js";
export { type SchemaClass, schemaClass } from "./schema-class.js";
export type { IsTemplate, TemplateVariables } from "./template-types.js";
