import { STORE_KEY_CHARS } from "../engine/engine.js";
import { takeCacheHint } from "../protocol/cache-hints.js";
import { compileSchema } from "../schema/adapters.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import { isUriTemplate, parseUriTemplate } from "../schema/uri-template.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Resource, ResourceTemplate } from "../wire/types.js";
import {
  type CompiledResource,
  type CompiledTemplate,
  checkHandler,
  checkUri,
  compileCompleters,
  type Fields,
  optional,
} from "./compile.js";
import type { ResourceTemplateDefinition, StaticResourceDefinition } from "./definitions.js";

// A resource or a resource template compiled at registration: its URI (or template) checked, its caching hints
// taken, a template's input matched against its variables, its completers against them.

// The fields a resource and a resource template share, as the wire lists them.
function described(
  definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>,
): Fields<Omit<ResourceTemplate, "uriTemplate" | "name">> {
  const { title, description, mimeType, annotations, icons, _meta } = definition;
  return { title, description, mimeType, annotations, icons, _meta };
}

export function compileStaticResource(definition: StaticResourceDefinition): CompiledResource {
  const uri = checkUri("Resource URI", definition.uri, "notes://all");
  if (isUriTemplate(uri)) {
    throw new DefinitionError(`Resource URI "${uri}" holds a {variable}; register it with uriTemplate instead of uri`);
  }
  // A template's fields on a fixed URI would be silently unread (JavaScript callers, or a cast, get past the types).
  const { input, list, complete, listCache } = definition as Partial<ResourceTemplateDefinition>;
  if (input !== undefined || list !== undefined || complete !== undefined || listCache !== undefined) {
    throw new DefinitionError(
      `Resource "${uri}" is a fixed URI, so it takes neither input, list, complete nor listCache; those are for templates like "notes://{id}"`,
    );
  }
  const { storeKey } = definition;
  if (storeKey !== undefined && (typeof storeKey !== "string" || storeKey.length > STORE_KEY_CHARS)) {
    throw new DefinitionError(
      `Resource "${uri}" storeKey must be a key of the server's store: a string of at most ${STORE_KEY_CHARS} characters (a template maps keys to URIs with { prefix, uri })`,
    );
  }
  const scopes = checkHandler(
    `Resource "${uri}"`,
    definition.handler,
    definition.guard,
    definition.use,
    definition.scopes,
  );
  const cache = takeCacheHint(definition.cache, `Resource "${uri}" cache`);
  const wire = optional<Resource>({
    uri,
    name: definition.name ?? uri,
    size: definition.size,
    ...described(definition),
  });
  return { definition, key: uri, wire, cache, scopes };
}

export function compileTemplate(definition: ResourceTemplateDefinition<InputSchema | undefined>): CompiledTemplate {
  const uriTemplate = checkUri("Resource template", definition.uriTemplate, "notes://{id}");
  const scopes = checkHandler(
    `Resource template "${uriTemplate}"`,
    definition.handler,
    definition.guard,
    definition.use,
    definition.scopes,
  );
  const cache = takeCacheHint(definition.cache, `Resource template "${uriTemplate}" cache`);
  const listCache = takeCacheHint(definition.listCache, `Resource template "${uriTemplate}" listCache`);
  checkTemplateStoreKey(uriTemplate, (definition as { storeKey?: unknown }).storeKey);
  const template = parseUriTemplate(uriTemplate);
  if (template.variables.length === 0) {
    throw new DefinitionError(`Resource template "${uriTemplate}" has no {variable}; register it with uri instead`);
  }
  const input =
    definition.input === undefined
      ? undefined
      : compileSchema(definition.input, "input", `Resource template "${uriTemplate}" input`);
  if (input) checkTemplateInput(uriTemplate, template.variables, input.jsonSchema);
  const wire = optional<ResourceTemplate>({
    uriTemplate,
    name: definition.name ?? uriTemplate,
    ...described(definition),
  });
  const completers = compileCompleters(
    `Resource template "${uriTemplate}"`,
    definition.complete,
    template.variables,
    "variable",
  );
  return {
    definition: definition as ResourceTemplateDefinition,
    key: uriTemplate,
    template,
    wire,
    input,
    completers,
    cache,
    listCache,
    scopes,
  };
}

// A template's storeKey: { prefix, uri }, the prefix a key of the server's store, uri a function.
function checkTemplateStoreKey(uriTemplate: string, storeKey: unknown): void {
  if (storeKey === undefined) return;
  const { prefix, uri } = (isPlainObject(storeKey) ? storeKey : {}) as { prefix?: unknown; uri?: unknown };
  if (typeof prefix !== "string" || prefix.length > STORE_KEY_CHARS || typeof uri !== "function") {
    throw new DefinitionError(
      `Resource template "${uriTemplate}" storeKey must be { prefix, uri }: the prefix of the store keys it shows (a string of at most ${STORE_KEY_CHARS} characters) and a function from a changed key to the URI it feeds`,
    );
  }
}

// A template's input schema must have exactly the template's variables as its fields.
function checkTemplateInput(uriTemplate: string, variables: readonly string[], schema: Record<string, unknown>): void {
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  const problems = [
    ...variables
      .filter((name) => !properties.includes(name))
      .map((name) => `{${name}} has no field in the input schema`),
    ...properties
      .filter((name) => !variables.includes(name))
      .map((name) => `field "${name}" is not a template variable`),
  ];
  if (schema.type !== "object") problems.push("the input schema must be an object of the variables");
  if (problems.length > 0) {
    throw new DefinitionError(
      `Resource template "${uriTemplate}" input does not match its variables: ${problems.join("; ")}; make the schema's fields exactly ${variables.map((name) => `"${name}"`).join(", ")}`,
    );
  }
}
