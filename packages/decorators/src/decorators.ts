import {
  type AnySchema,
  type CallToolResult,
  type Completion,
  type ContentBlock,
  DefinitionError,
  type GetPromptResult,
  type Infer,
  type InferInput,
  type InputSchema,
  type MaybePromise,
  type RequestContext,
  type Resource,
} from "@toolsmith/core";
import { checkOwn, checkRegistration } from "./definitions.js";
import type { McpServer } from "./mcp-server.js";
import {
  type CompleteOption,
  type PromptOptions,
  type Registration,
  type ResourceOptions,
  recordLegacy,
  recordTc39,
  type ToolOptions,
} from "./registry.js";
import { type BRAND, schemaOf } from "./schema-class.js";
import type { IsTemplate, TemplateVariables } from "./template-types.js";

/**
 * A method of the class that a decorator's options name (`list: "listIssues"`, `complete: { id: "issueIds" }`,
 * `guard: "canSee"`): where it is named, the name, the signature it must have, and what that signature means.
 */
export interface NamedMethod<At extends string = string, Name extends string = string, Signature = unknown> {
  at: At;
  name: Name;
  signature: Signature;
}

/** The signature of a method named by `list`. */
export type ListMethod = (ctx: RequestContext) => MaybePromise<Resource[]>;
/** The signature of a method named in `complete`. */
export type CompleteMethod = (
  value: string,
  context: { arguments: Readonly<Record<string, string>>; ctx: RequestContext },
) => MaybePromise<Completion>;
/** The signature of a method named by `guard`. */
export type GuardMethod = (ctx: RequestContext) => boolean | undefined;

/**
 * A method decorator for both dialects. `Params` is what a method may declare (`LegacyParams` under
 * experimentalDecorators, where a schema-class parameter may supply the input), `Result` what it may return,
 * and `Named` the methods of the class its options name: anything that does not fit is a compile error.
 */
export interface ToolsmithDecorator<
  Params extends unknown[],
  LegacyParams extends unknown[] = Params,
  Result = unknown,
  LegacyMode extends "plain" | "schema-class" = "plain",
  Named extends NamedMethod = never,
> {
  /** TC39 standard decorators: public instance methods of a server class. */
  <This, Method extends (this: This, ...args: Params) => Result>(
    value: Method,
    context: ClassMethodDecoratorContext<This, Method> & { static: false; private: false } & HostCheck<This, Named>,
  ): void;
  /** Legacy `experimentalDecorators`: the target is the class's prototype. */
  <Method extends (...args: LegacyParams) => Result>(
    target: McpServer & HostOf<Named>,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<Method> & LegacyCheck<Method, LegacyMode>,
  ): void;
}

// A type error that reads as what to change: the decorator's context must have this property, and none does.
type Problem<Message extends string> = { [K in Message]: never };

// What each kind of named method must do, said in the type error when it does not.
type Expected<At extends string> = At extends "list"
  ? "return the template's resources, { uri, name }[], or a promise of them"
  : At extends "guard"
    ? "take the request context and return a boolean"
    : "take (value, { arguments, ctx }) and return completions, string[] or { values }, or a promise of them";

// One message per named method that is missing or does not fit; never when all fit.
type Mismatch<This, N> =
  N extends NamedMethod<infer At, infer Name, infer Signature>
    ? Name extends keyof This
      ? This[Name] extends Signature
        ? never
        : `${At}: ${Name} must ${Expected<At>}`
      : `${At}: ${Name} is not a public method of this class`
    : never;

// The TC39 overload takes any class, so that these checks, not a mismatch deep in the context type, are what fails.
type HostCheck<This, Named extends NamedMethod> = This extends McpServer
  ? Problem<Mismatch<This, Named>>
  : Problem<"Toolsmith decorators go on methods of a class that extends McpServer">;

/** Under legacy decorators, the class (its prototype) must have each named method, with its signature. */
export type HostOf<Named extends NamedMethod> = {
  [K in Named["name"]]: Extract<Named, { name: K }>["signature"];
};

// The methods that options name, read from their literal types.
// A name typed only as `string` (a variable, or nothing inferred) is checked when the server is built instead.
type ListNamed<L extends string> = [L] extends [never] ? never : NamedMethod<"list", L, ListMethod>;
type GuardNamed<G extends string> = [G] extends [never]
  ? never
  : string extends G
    ? never
    : NamedMethod<"guard", G, GuardMethod>;
type CompleteNamed<C> = {
  [K in keyof C & string]: C[K] extends string
    ? string extends C[K]
      ? never
      : NamedMethod<`complete.${K}`, C[K], CompleteMethod>
    : never;
}[keyof C & string];

type NoArguments = Record<string, never>;
type FirstParameter<M> = M extends (first: infer A, ...rest: never[]) => unknown ? A : never;

// Legacy tools without `input`: the first parameter must be absent, take no arguments, or be a schema class.
type LegacyCheck<M, Mode> = Mode extends "plain"
  ? unknown
  : [FirstParameter<M>] extends [never]
    ? unknown
    : typeof BRAND extends keyof FirstParameter<M>
      ? unknown
      : NoArguments extends FirstParameter<M>
        ? unknown
        : { "declare the first parameter as a schemaClass, or give the tool an input": never };

/**
 * The arguments a decorated method receives for an `input` (or a prompt's `args`), zod object or raw shape: the
 * parsed values, defaults filled in. Keep the schema in a constant and type the parameter from it.
 * @example
 * const Booking = z.object({ from: z.string(), to: z.string(), seats: z.number().default(1) });
 * class Desk extends McpServer {
 *   @tool({ description: "Book a seat", input: Booking })
 *   book({ from, to, seats }: Args<typeof Booking>) { return `${seats} × ${from}–${to}`; }
 * }
 */
export type Args<I extends InputSchema> = InferInput<I>;

/** A tool method's parameters: the arguments, typed from `input`, then the request context. */
export type ToolParams<I> = [args: [I] extends [undefined] ? NoArguments : InferInput<I>, ctx: RequestContext];

/** Under legacy decorators, a tool without `input` may instead declare a schema class as its parameter. */
export type LegacyToolParams<I> = [I] extends [undefined]
  ? // biome-ignore lint/suspicious/noExplicitAny: LegacyCheck narrows it to a schema class or no arguments.
    [args: any, ctx: RequestContext]
  : ToolParams<I>;

type LegacyModeOf<I> = [I] extends [undefined] ? "schema-class" : "plain";

/** What a tool method may return: anything, or with `output`, the output's type or a whole result. */
export type ToolResult<O> = [O] extends [undefined] ? unknown : MaybePromise<Infer<O> | CallToolResult>;

/** A resource method's parameters: the context for a fixed URI; the variables, then the context, for a template. */
export type ResourceParams<U extends string, I> = string extends U
  ? [variablesOrContext: never, ctx?: RequestContext]
  : IsTemplate<U> extends true
    ? [variables: [I] extends [undefined] ? TemplateVariables<U> : InferInput<I>, ctx: RequestContext]
    : [ctx: RequestContext];

/** A prompt method's parameters: the arguments, typed from `args`, then the request context. */
export type PromptParams<A> = [args: [A] extends [undefined] ? NoArguments : InferInput<A>, ctx: RequestContext];

type PromptMessageLike = string | ContentBlock | { role: "user" | "assistant"; content: string | ContentBlock };

/** What a prompt method may return: a string, a message, messages, or a whole result. */
export type PromptResult = MaybePromise<PromptMessageLike | PromptMessageLike[] | GetPromptResult>;

interface Tc39Context {
  kind: string;
  name: string | symbol;
  static: boolean;
  private: boolean;
  metadata: Record<PropertyKey, unknown>;
}

// The server's identity fields and toServer live on the instance; a method of one of these names would hide them.
const RESERVED: ReadonlySet<string | symbol> = new Set([
  "name",
  "version",
  "title",
  "description",
  "instructions",
  "toServer",
]);

// The one place the two dialects are told apart: TC39 passes (value, context object), legacy (target, key, descriptor).
function isTc39(args: unknown[]): args is [unknown, Tc39Context] {
  const context = args[1];
  return args.length === 2 && typeof context === "object" && context !== null && "kind" in context;
}

// Under legacy decorators without design:paramtypes (esbuild, vite without the plugin), a tool with a parameter and
// no input may have meant a schema class that nothing can read: McpServer warns when it builds the server.
interface Legacy {
  paramSchema: unknown;
  noMetadata: boolean;
}

// `(_args, ctx)`: a first parameter named with a leading underscore is declared unused (as TypeScript's
// noUnusedParameters reads it), so it was not meant to carry a schema class. Read from the method's source text.
function firstParameterUnused(method: (...args: never[]) => unknown): boolean {
  const source = Function.prototype.toString.call(method);
  const open = source.indexOf("(");
  return open >= 0 && /^\s*_/.test(source.slice(open + 1));
}

function decorator(
  kind: Registration["kind"],
  make: (key: string | symbol, legacy: Legacy | undefined) => Registration,
) {
  function accept(key: string | symbol, className: string | undefined, legacy: Legacy | undefined): Registration {
    if (RESERVED.has(key)) {
      const name = String(key);
      throw new DefinitionError(
        `@${kind} on ${className ? `${className}.` : ""}${name}: "${name}" belongs to McpServer; rename the method and set name: "${name}" in the decorator's options`,
      );
    }
    const registration = make(key, legacy);
    checkRegistration(registration, className);
    return registration;
  }
  return (...args: unknown[]): void => {
    if (isTc39(args)) {
      const [, context] = args;
      const name = String(context.name);
      if (context.kind !== "method") {
        throw new DefinitionError(`@${kind} decorates methods; "${name}" is a ${context.kind}`);
      }
      if (context.static || context.private) {
        throw new DefinitionError(
          `@${kind} decorates public instance methods; make "${name}" neither static nor #private`,
        );
      }
      const registration = accept(context.name, undefined, undefined);
      checkOwn(recordTc39(context.metadata, registration), registration, undefined);
      return;
    }
    const [target, key, descriptor] = args as [unknown, string | symbol, PropertyDescriptor | undefined];
    const className = typeof target === "function" ? target.name : (target as object | null)?.constructor?.name;
    if (typeof target === "function") {
      throw new DefinitionError(`@${kind} decorates instance methods; make ${className}.${String(key)} non-static`);
    }
    if (typeof target !== "object" || target === null || typeof descriptor?.value !== "function") {
      throw new DefinitionError(`@${kind} decorates methods; ${className}.${String(key)} is not a method`);
    }
    const paramTypes = Reflect.getMetadata("design:paramtypes", target, key) as unknown[] | undefined;
    const noMetadata = !paramTypes && descriptor.value.length > 0 && !firstParameterUnused(descriptor.value);
    const legacy = { paramSchema: schemaOf(paramTypes?.[0]), noMetadata };
    const registration = accept(key, className, legacy);
    checkOwn(recordLegacy(target, registration), registration, className);
  };
}

/**
 * Publish a method as a tool. Its name defaults to the method's; its first parameter is typed from `input`,
 * and with `output` its return type from that. `guard` may name a method of the class.
 * @example
 * class Calc extends McpServer {
 *   @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
 *   add({ a, b }: { a: number; b: number }) { return a + b; }
 * }
 */
export function tool<
  I extends InputSchema | undefined = undefined,
  O extends AnySchema | undefined = undefined,
  const G extends string = never,
>(options: ToolOptions<I, G> & { output?: O }): ToolDecorator<I, O, G> {
  return decorator("tool", (key, legacy) => ({
    kind: "tool",
    key,
    options: options as ToolOptions,
    ...(legacy?.paramSchema && options.input === undefined ? { paramSchema: legacy.paramSchema as never } : {}),
    ...(legacy?.noMetadata && options.input === undefined ? { noMetadata: true } : {}),
  })) as ToolDecorator<I, O, G>;
}

type ToolDecorator<I, O, G extends string> = ToolsmithDecorator<
  ToolParams<I>,
  LegacyToolParams<I>,
  ToolResult<O>,
  LegacyModeOf<I>,
  GuardNamed<NoInfer<G>>
>;

type ResourceDecorator<U extends string, I, L extends string, C, G extends string> = ToolsmithDecorator<
  ResourceParams<U, I>,
  ResourceParams<U, I>,
  unknown,
  "plain",
  ListNamed<NoInfer<L>> | CompleteNamed<NoInfer<C>> | GuardNamed<NoInfer<G>>
>;

/**
 * Publish a method as a resource at a fixed URI (the method gets the context), or as an RFC 6570 template
 * (the method gets the variables, typed from the template or from `input`, then the context). `list`, each
 * `complete` entry and `guard` may name a method of the class, which then runs with `this` the instance.
 * @example
 * class Notes extends McpServer {
 *   notes = new Map<string, string>();
 *   @resource("notes://{id}", { description: "One note", list: "listNotes", complete: { id: "noteIds" } })
 *   note({ id }: { id: string }) { return this.notes.get(id); }
 *   listNotes() { return [...this.notes.keys()].map((id) => ({ uri: `notes://${id}`, name: id })); }
 *   noteIds(value: string) { return [...this.notes.keys()].filter((id) => id.startsWith(value)); }
 * }
 */
export function resource<
  const U extends string,
  I extends InputSchema | undefined = undefined,
  const L extends string = never,
  const C extends CompleteOption = Record<never, never>,
  const G extends string = never,
>(uri: U, options: ResourceOptions<I, L, C, G> = {}): ResourceDecorator<U, I, L, C, G> {
  return decorator("resource", (key) => ({
    kind: "resource",
    key,
    uri,
    options: options as ResourceOptions,
  })) as ResourceDecorator<U, I, L, C, G>;
}

type PromptDecorator<A, C, G extends string> = ToolsmithDecorator<
  PromptParams<A>,
  PromptParams<A>,
  PromptResult,
  "plain",
  CompleteNamed<NoInfer<C>> | GuardNamed<NoInfer<G>>
>;

/**
 * Publish a method as a prompt; zod string schemas in `args` become its arguments. Each `complete` entry and
 * `guard` may name a method of the class.
 * @example
 * class Notes extends McpServer {
 *   @prompt({ description: "Summarise notes", args: { topic: z.string() }, complete: { topic: "topics" } })
 *   summarise({ topic }: { topic: string }) { return `Summarise my notes on ${topic}`; }
 *   topics(value: string) { return ["work", "home"].filter((topic) => topic.startsWith(value)); }
 * }
 */
export function prompt<
  A extends InputSchema | undefined = undefined,
  const C extends CompleteOption = Record<never, never>,
  const G extends string = never,
>(options: PromptOptions<A, C, G> = {}): PromptDecorator<A, C, G> {
  return decorator("prompt", (key) => ({
    kind: "prompt",
    key,
    options: options as PromptOptions,
  })) as PromptDecorator<A, C, G>;
}
