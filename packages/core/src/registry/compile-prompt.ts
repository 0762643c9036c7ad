import { compileSchema } from "../schema/adapters.js";
import { readable } from "../schema/inline-refs.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Prompt, PromptArgument } from "../wire/types.js";
import { type CompiledPrompt, checkHandler, checkName, compileCompleters, optional } from "./compile.js";
import type { PromptDefinition } from "./definitions.js";

// A prompt compiled at registration: its name and handler checked, its arguments read from its schema (strings
// only, as the wire carries them), its completers matched against them.

export function compilePrompt(definition: PromptDefinition<InputSchema | undefined>): CompiledPrompt {
  const name = checkName("Prompt", definition.name);
  const scopes = checkHandler(
    `Prompt "${name}"`,
    definition.handler,
    definition.guard,
    definition.use,
    definition.scopes,
  );
  const args =
    definition.args === undefined ? undefined : compileSchema(definition.args, "input", `Prompt "${name}" args`);
  // A raw JSON Schema's `$ref`s followed, so an argument defined under `$defs` is checked and described too.
  const read = args ? readable(args.jsonSchema) : undefined;
  const properties = isPlainObject(read?.properties) ? read.properties : {};
  const required = Array.isArray(read?.required) ? (read.required as string[]) : [];
  const argumentList: PromptArgument[] = Object.entries(properties).map(([argName, property]) => {
    if (isPlainObject(property) && property.type !== undefined && property.type !== "string") {
      throw new DefinitionError(
        `Prompt "${name}" argument "${argName}" is not a string schema; prompt arguments are strings on the wire, so use a string schema (zod: z.string() or z.enum([...]); ArkType: "string"; Valibot: v.string(); JSON Schema: { type: "string" })`,
      );
    }
    const text = (key: "title" | "description") =>
      isPlainObject(property) && typeof property[key] === "string" ? property[key] : undefined;
    return optional<PromptArgument>({
      name: argName,
      title: text("title"),
      description: text("description"),
      required: required.includes(argName),
    });
  });
  const wire = optional<Prompt>({
    name,
    title: definition.title,
    description: definition.description,
    arguments: args ? argumentList : undefined,
    icons: definition.icons,
    _meta: definition._meta,
  });
  const completers = compileCompleters(
    `Prompt "${name}"`,
    definition.complete,
    argumentList.map((argument) => argument.name),
    "argument",
  );
  return { definition: definition as PromptDefinition, key: name, wire, args, required, completers, scopes };
}
