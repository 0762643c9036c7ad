import type { RequestContext } from "../context/context.js";
import type { Middleware } from "../middleware/compose.js";
import type { CacheHint } from "../protocol/cache-hints.js";
import type { TaskOption } from "../protocol/tasks.js";
import type { AnySchema, InferInput, InputSchema } from "../schema/schema-adapter.js";
import type { UriVariables } from "../schema/uri-template.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../wire/types.js";
import type { ToolUi } from "./app-options.js";
import type { Guard } from "./guards.js";

/** What a completer may answer: values, or values with the total and whether there are more. */
export type Completion = string[] | { values: string[]; total?: number; hasMore?: boolean };

/**
 * Suggests values for one prompt argument or template variable as the user types: `value` is what they typed so
 * far, `context.arguments` what they already filled in. At most 100 values are sent; `total` and `hasMore` say the rest.
 */
export type Completer = (
  value: string,
  context: { arguments: Readonly<Record<string, string>>; ctx: RequestContext },
) => MaybePromise<Completion>;

export type { MaybePromise };

/**
 * What every definition has besides its wire fields: who may use it, and middleware of its own. The wire fields
 * (name, title, description, icons, annotations, `_meta`, …) are the ones its list entry has, declared once in
 * wire/types.ts.
 */
interface Served {
  /** Who may see and use it (default: everyone). */
  guard?: Guard;
  /**
   * The OAuth scopes a caller must hold to use it (each an RFC 6749 scope token), besides the server's own
   * (`createServer({ scopes })`). A caller that lacks one is refused before anything of it runs, with
   * `ErrorCode.InsufficientScope` naming every scope it needs (HTTP: 403 with an `insufficient_scope` challenge).
   * It is still listed, so a client can ask for the scopes before calling it (a guard hides).
   */
  scopes?: readonly string[];
  /**
   * Middleware around this definition alone: its calls, reads or gets, and its completions, once it is known to be
   * the caller's (never for one its guard refuses, nor when disabled). It follows the definition through renames,
   * and a mounted module's keeps working.
   */
  use?: readonly Middleware[];
}

/**
 * A tool: a function the model calls. The plain object that decorators produce and the router consumes.
 * @example
 * ```ts source="examples/registry.ts#ToolDefinition"
 * const add = defineTool({
 *   name: "add",
 *   description: "Add two numbers",
 *   input: { a: z.number(), b: z.number() },
 *   handler: ({ a, b }) => a + b,
 * });
 * ```
 */
export interface ToolDefinition<I extends InputSchema | undefined = InputSchema | undefined>
  extends Omit<Tool, "inputSchema" | "outputSchema">,
    Served {
  /** A zod object schema or a raw shape (zod v4, or v3 from "zod/v3"); omitted means no arguments. */
  input?: I;
  /** The schema `structuredContent` must fit; listed as `outputSchema`. */
  output?: AnySchema;
  /**
   * Runs with validated arguments. Return a string, a number, a plain object (→ `structuredContent`
   * plus its JSON as text), content blocks, or a whole `CallToolResult`. A throw becomes an `isError` result.
   */
  handler: (args: InferInput<I>, ctx: RequestContext) => unknown;
  /**
   * Whether a call may run as a task (the tasks extension, 2026-07-28): "forbidden" (default), "optional" (a task
   * when the client declared the extension), "required" (a client without it is refused -32021), or those with
   * `detach`, `ttlMs`, `pollIntervalMs`. Server-side only: never listed.
   */
  task?: TaskOption;
  /**
   * An MCP App for the tool: registers its `ui://` resource (`text/html;profile=mcp-app`), links it from the tool's
   * `_meta.ui` and declares the `io.modelcontextprotocol/ui` extension. Its resource is seen only by who sees a tool
   * that links it.
   */
  ui?: ToolUi;
}

/** What a resource and a resource template have besides their wire fields. */
interface ResourceServed extends Served {
  /** Caching hint for 2026-07-28 reads; the server's default otherwise. */
  cache?: CacheHint;
  /**
   * Called when this process gains the first subscriber of a URI this serves (a `resources/subscribe`, or a
   * `subscriptions/listen` naming it), and its result when the last one goes; to follow a source only while heard.
   */
  watch?: (uri: string) => () => void;
}

/** A resource at one fixed URI. */
export interface StaticResourceDefinition extends Omit<Resource, "name">, ResourceServed {
  /** Defaults to the URI. */
  name?: string;
  /** Return text, bytes, contents, or a whole result; `undefined` means not found. */
  handler: (ctx: RequestContext) => unknown;
  /**
   * The key of the server's store (`server.store`, `ctx.store`) this resource shows: each change to it through the
   * store tells the resource's subscribers (`notifications/resources/updated`), on every process, once.
   * @example
   * ```ts source="examples/store.ts#storeKey"
   * server.resource({
   *   uri: "board://today",
   *   storeKey: "board",
   *   handler: async () => JSON.stringify((await server.store.get("board")) ?? {}),
   * });
   * ```
   */
  storeKey?: string;
}

/** Resources addressed by an RFC 6570 URI template; the variables arrive as the first parameter. */
export interface ResourceTemplateDefinition<I extends InputSchema | undefined = InputSchema | undefined>
  extends Omit<ResourceTemplate, "name">,
    ResourceServed {
  /** Defaults to the template. */
  name?: string;
  /**
   * A schema for the variables (its fields must be exactly the template's variables); a URI whose
   * variables fail it is answered with -32602. Without it, the variables arrive as strings.
   */
  input?: I;
  /** Return text, bytes, contents, or a whole result; `undefined` means not found. */
  handler: (variables: TemplateArgs<I>, ctx: RequestContext, uri: string) => unknown;
  /** Completers for the template's variables, by variable name (`completion/complete`). */
  complete?: Readonly<Record<string, Completer>>;
  /** The concrete resources this template currently has, added to `resources/list`. */
  list?: (ctx: RequestContext) => MaybePromise<Resource[]>;
  /**
   * Caching hint of a 2026-07-28 `resources/list` that `list` adds to (default `{ ttlMs: 0, cacheScope: "private" }`:
   * it is computed per request). With several such templates the shortest `ttlMs` and narrowest scope win.
   */
  listCache?: CacheHint;
  /**
   * The keys of the server's store (`server.store`, `ctx.store`) this template's resources show: every key under
   * `prefix`, and the URI of the resource each one feeds (`uri(key)`, with the whole key; undefined: none). Each
   * change to such a key through the store tells that URI's subscribers (`notifications/resources/updated`), on
   * every process, once.
   * @example
   * ```ts source="examples/store.ts#templateStoreKey"
   * server.resource({
   *   uriTemplate: "notes://{id}",
   *   storeKey: { prefix: "note:", uri: (key) => `notes://${key.slice("note:".length)}` },
   *   handler: async ({ id }) => JSON.stringify((await server.store.get(`note:${id}`)) ?? null),
   * });
   * ```
   */
  storeKey?: TemplateStoreKey;
}

/** Which store keys a resource template shows, and the URI each feeds (`ResourceTemplateDefinition.storeKey`). */
export interface TemplateStoreKey {
  /** Every key under it (of the whole server's store). */
  readonly prefix: string;
  /** The URI of the resource a changed key feeds; undefined when it feeds none. */
  readonly uri: (key: string) => string | undefined;
}

/** What a template handler receives: the validated input, or the raw variables. */
export type TemplateArgs<I> = [I] extends [undefined] ? UriVariables : InferInput<I>;

/** A resource definition, static or templated. */
export type ResourceDefinition = StaticResourceDefinition | ResourceTemplateDefinition;

/** A prompt: a template the user picks. Its arguments are strings on the wire. */
export interface PromptDefinition<A extends InputSchema | undefined = InputSchema | undefined>
  extends Omit<Prompt, "arguments">,
    Served {
  /** zod string schemas: each becomes an argument, required unless optional. */
  args?: A;
  /** Completers for the prompt's arguments, by argument name (`completion/complete`). */
  complete?: Readonly<Record<string, Completer>>;
  /** Return a string, messages, or a whole `GetPromptResult`. */
  handler: (args: InferInput<A>, ctx: RequestContext) => unknown;
}

/** Identity, with the handler's argument type inferred from `input`. */
export function defineTool<I extends InputSchema | undefined = undefined>(
  definition: ToolDefinition<I>,
): ToolDefinition<I> {
  return definition;
}

/** Identity, typed: a static resource. */
export function defineResource(definition: StaticResourceDefinition): StaticResourceDefinition {
  return definition;
}

/** Identity, with the handler's variables typed from `input`. */
export function defineResourceTemplate<I extends InputSchema | undefined = undefined>(
  definition: ResourceTemplateDefinition<I>,
): ResourceTemplateDefinition<I> {
  return definition;
}

/** Identity, with the handler's argument type inferred from `args`. */
export function definePrompt<A extends InputSchema | undefined = undefined>(
  definition: PromptDefinition<A>,
): PromptDefinition<A> {
  return definition;
}
