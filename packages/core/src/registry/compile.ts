import { checkScopes } from "../context/scopes.js";
import type { CacheHint } from "../protocol/cache-hints.js";
import type { TaskPolicy } from "../protocol/tasks.js";
import type { CompiledSchema } from "../schema/schema-adapter.js";
import type { UriTemplate } from "../schema/uri-template.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../wire/types.js";
import type {
  Completer,
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";

// Definitions checked and compiled into what the router serves: once, at registration (a tool's JSON Schemas on
// first use, when registration could tell they exist). Every mistake is a DefinitionError that says what to change.
// Here: what each primitive compiles to, and the checks they share; compile-tool.ts, compile-resource.ts and
// compile-prompt.ts compile each.

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** What a registry table keeps: the definition, its key (name, URI or URI template) and how it is listed. */
export interface Compiled<D, W> {
  readonly definition: D;
  readonly key: string;
  readonly wire: W;
  /** The scopes its caller must hold, checked at registration; undefined when none. */
  readonly scopes: readonly string[] | undefined;
}

export interface CompiledTool extends Compiled<ToolDefinition, Tool> {
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
  /** Whether and how it may run as a task (undefined: never); never listed. */
  readonly task: TaskPolicy | undefined;
}

export interface CompiledResource extends Compiled<StaticResourceDefinition, Resource> {
  /** The definition's `cache` as checked at registration; never read again from the definition. */
  readonly cache: CacheHint | undefined;
}

export interface CompiledTemplate extends Compiled<ResourceTemplateDefinition, ResourceTemplate> {
  readonly template: UriTemplate;
  readonly input: CompiledSchema | undefined;
  readonly completers: ReadonlyMap<string, Completer>;
  /** The definition's `cache` and `listCache` as checked at registration; never read again from the definition. */
  readonly cache: CacheHint | undefined;
  readonly listCache: CacheHint | undefined;
}

export interface CompiledPrompt extends Compiled<PromptDefinition, Prompt> {
  readonly args: CompiledSchema | undefined;
  readonly required: readonly string[];
  readonly completers: ReadonlyMap<string, Completer>;
}

/** Completers must name arguments that exist: a typo would otherwise complete nothing, silently. */
export function compileCompleters(
  what: string,
  complete: Readonly<Record<string, Completer>> | undefined,
  names: readonly string[],
  noun: string,
): ReadonlyMap<string, Completer> {
  const completers = new Map<string, Completer>();
  if (complete === undefined) return completers;
  if (!isPlainObject(complete))
    throw new DefinitionError(`${what} complete must be an object of functions by ${noun} name`);
  for (const [name, completer] of Object.entries(complete)) {
    if (!names.includes(name)) {
      throw new DefinitionError(
        `${what} has a completer for "${name}", which is not one of its ${noun}s (${names.map((n) => `"${n}"`).join(", ") || "none"})`,
      );
    }
    if (typeof completer !== "function") throw new DefinitionError(`${what} completer for "${name}" is not a function`);
    completers.set(name, completer);
  }
  return completers;
}

/** A tool or prompt name, checked. */
export function checkName(kind: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new DefinitionError(
      `${kind} name ${JSON.stringify(name)} is invalid: use 1–64 characters of A-Z, a-z, 0-9, "_", "." and "-"`,
    );
  }
  return name;
}

/** Every field of the wire type `T`, set or not: a field added to `T` fails to compile until a compile fills it in. */
export type Fields<T> = { [K in keyof Required<T>]: T[K] };

/** Only the fields that are set, in their order. */
export function optional<T extends object>(fields: Fields<T>): T {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) {
    if (fields[key] !== undefined) out[key] = fields[key];
  }
  return out as T;
}

/** A URI with a scheme, checked (`example` shows one). */
export function checkUri(kind: string, uri: unknown, example: string): string {
  if (typeof uri !== "string" || !URI_SCHEME.test(uri)) {
    throw new DefinitionError(`${kind} ${JSON.stringify(uri)} is invalid: it needs a scheme, like "${example}"`);
  }
  return uri;
}

/** A handler, and the guard, middleware and scopes beside it, checked: its scopes as kept (undefined for none). */
export function checkHandler(
  what: string,
  handler: unknown,
  guard?: unknown,
  use?: unknown,
  scopes?: unknown,
): readonly string[] | undefined {
  if (typeof handler !== "function") throw new DefinitionError(`${what} has no handler function`);
  if (guard !== undefined && typeof guard !== "function") {
    throw new DefinitionError(`${what} guard must be a function of the request context that returns true to allow`);
  }
  if (use !== undefined && (!Array.isArray(use) || use.some((one) => typeof one !== "function"))) {
    throw new DefinitionError(`${what} use must be an array of middleware functions: (operation, next) => result`);
  }
  return checkScopes(what, scopes);
}
