import { type TaskPolicy, taskPolicyOf } from "../protocol/tasks.js";
import { compileSchema } from "../schema/adapters.js";
import { DEFERRED_NODES } from "../schema/compiled-schema.js";
import type { CompiledSchema, InputSchema } from "../schema/schema-adapter.js";
import { DefinitionError } from "../wire/errors.js";
import type { Tool } from "../wire/types.js";
import { type CompiledTool, checkHandler, checkName, optional } from "./compile.js";
import type { ToolDefinition } from "./definitions.js";

// A tool compiled at registration: its name, description, handler and task policy checked, its schemas compiled and
// bounded in size; its listed form made on first need.

const NO_ARGUMENTS = { type: "object", properties: {} } as const;

/** The default bound on a listed tool schema's size: schema nodes once reused parts are inlined. */
export const MAX_SCHEMA_NODES = 10_000;

// Inlining reused parts may grow a schema exponentially (a part used twice per level): past the bound it is refused
// here, at registration. A deferred schema is surely within any bound of at least DEFERRED_NODES, so stays deferred.
function checkSize(schema: CompiledSchema | undefined, what: string, bound: number): void {
  if (schema === undefined || (schema.deferred && bound >= DEFERRED_NODES)) return;
  const { nodes } = schema;
  if (nodes <= bound) return;
  throw new DefinitionError(
    `${what}'s JSON Schema lists ${nodes.toLocaleString("en-US")} schema nodes once its reused parts are inlined, over the bound of ${bound.toLocaleString("en-US")}; reuse fewer sub-schemas, or raise createServer({ maxSchemaNodes })`,
  );
}

export function compileTool(
  definition: ToolDefinition<InputSchema | undefined>,
  maxSchemaNodes = MAX_SCHEMA_NODES,
): CompiledTool {
  const name = checkName("Tool", definition.name);
  if (typeof definition.description !== "string" || definition.description.trim() === "") {
    throw new DefinitionError(
      `Tool "${name}" has no description; add one: it is the model's whole manual for the tool`,
    );
  }
  const scopes = checkHandler(
    `Tool "${name}"`,
    definition.handler,
    definition.guard,
    definition.use,
    definition.scopes,
  );
  const input =
    definition.input === undefined ? undefined : compileSchema(definition.input, "input", `Tool "${name}" input`);
  if (input && !input.isObject) {
    throw new DefinitionError(
      `Tool "${name}" input must be an object schema (z.object or a shape like { text: z.string() }); MCP requires type "object"`,
    );
  }
  const output =
    definition.output === undefined ? undefined : compileSchema(definition.output, "output", `Tool "${name}" output`);
  checkSize(input, `Tool "${name}" input`, maxSchemaNodes);
  checkSize(output, `Tool "${name}" output`, maxSchemaNodes);
  const task = taskPolicyOf(`Tool "${name}"`, definition.task);
  return new ToolCompiled(definition as ToolDefinition, input, output, task, scopes);
}

// A tool as listed is made on first need (its first list, call or describe()), with its JSON Schemas: registering
// thousands of tools makes none of them. Its fields are taken now, as a wire made now would have them.
class ToolCompiled implements CompiledTool {
  readonly key: string;
  readonly #title: string | undefined;
  readonly #description: string;
  readonly #annotations: Tool["annotations"];
  readonly #icons: Tool["icons"];
  readonly #meta: Tool["_meta"];
  #wire: Tool | undefined;

  constructor(
    readonly definition: ToolDefinition,
    readonly input: CompiledSchema | undefined,
    readonly output: CompiledSchema | undefined,
    readonly task: TaskPolicy | undefined,
    readonly scopes: readonly string[] | undefined,
  ) {
    this.key = definition.name;
    this.#title = definition.title;
    this.#description = definition.description;
    this.#annotations = definition.annotations;
    this.#icons = definition.icons;
    this.#meta = definition._meta;
  }

  get wire(): Tool {
    this.#wire ??= optional<Tool>({
      name: this.key,
      title: this.#title,
      description: this.#description,
      inputSchema: this.input ? this.input.jsonSchema : { ...NO_ARGUMENTS },
      outputSchema: this.output?.jsonSchema,
      annotations: this.#annotations,
      icons: this.#icons,
      _meta: this.#meta,
    });
    return this.#wire;
  }
}
