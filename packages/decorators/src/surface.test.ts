import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["McpServer", "prompt", "resource", "schemaClass", "skill", "tool", "use"];
const TYPES = [
  "Args",
  "CompleteMethod",
  "CompleteOption",
  "GuardMethod",
  "GuardOption",
  "HostOf",
  "IsTemplate",
  "LegacyToolParams",
  "ListMethod",
  "McpServerOptions",
  "NamedMethod",
  "PromptOptions",
  "PromptParams",
  "PromptResult",
  "ResourceOptions",
  "ResourceParams",
  "SchemaClass",
  "SchemaInstance",
  "SkillFiles",
  "SkillOptions",
  "TemplateVariables",
  "ToolOptions",
  "ToolParams",
  "ToolResult",
  "ToolsmithDecorator",
];

surfaceSuite("@toolsmith/decorators", import.meta.url, { "index.ts": { values: VALUES, types: TYPES } });
