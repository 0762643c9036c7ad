import {
  type AnySchema,
  type CallToolResult,
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
 * A method decorator for both dialects. `Params` is what a method may declare (`LegacyParams` under
 * experimentalDecorators, where a schema-class parameter may supply the input), `Result` what it may return,
 * and `Host` the class it may sit on: anything that does not fit is a compile error.
 */
export interface ToolsmithDecorator<
  Params extends unknown[],
  LegacyParams extends unknown[] = Params,
  Result = unknown,
  Host = McpServer,
  LegacyMode extends "plain" | "schema-class" = "plain",
  List extends string = never,
> {
  /** TC39 standard decorators: public instance methods of a server class. */
  <This, Method extends (this: This, ...args: Params) => Result>(
    value: Method,
    context: ClassMethodDecoratorContext<This, Method> & { static: false; private: false } & HostCheck<This, List>,
  ): void;
  /** Legacy `experimentalDecorators`: the target is the class's prototype. */
  <Method extends (...args: LegacyParams) => Result>(
    target: Host,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<Method> & LegacyCheck<Method, LegacyMode>,
  ): void;
}

// A type error that reads as what to change: the decorator's context must have this property, and none does.
type Problem<Message extends string> = { [K in Message]: never };

// The TC39 overload takes any class, so that these checks, not a mismatch deep in the context type, are what fails.
type HostCheck<This, List extends string> = This extends McpServer
  ? [List] extends [never]
    ? unknown
    : List extends keyof This
      ? This[List] extends (ctx: RequestContext) => MaybePromise<Resource[]>
        ? unknown
        : Problem<`list: ${List} must return the template's resources, { uri, name }[], or a promise of them`>
      : Problem<`list: ${List} is not a public method of this class`>
  : Problem<"Toolsmith decorators go on methods of a class that extends McpServer">;

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

/** The class a resource decorator may sit on: a server class with the `list` method it names. */
export type ResourceHost<L extends string> = McpServer &
  ([L] extends [never] ? unknown : { [K in L]: (ctx: RequestContext) => MaybePromise<Resource[]> });

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

function decorator(kind: Registration["kind"], make: (key: string | symbol, paramSchema: unknown) => Registration) {
  function accept(key: string | symbol, className: string | undefined, paramSchema: unknown): Registration {
    if (RESERVED.has(key)) {
      const name = String(key);
      throw new DefinitionError(
        `@${kind} on ${className ? `${className}.` : ""}${name}: "${name}" belongs to McpServer; rename the method and set name: "${name}" in the decorator's options`,
      );
    }
    const registration = make(key, paramSchema);
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
    const registration = accept(key, className, schemaOf(paramTypes?.[0]));
    checkOwn(recordLegacy(target, registration), registration, className);
  };
}

/**
 * Publish a method as a tool. Its name defaults to the method's; its first parameter is typed from `input`,
 * and with `output` its return type from that.
 * @example
 * class Calc extends McpServer {
 *   @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
 *   add({ a, b }: { a: number; b: number }) { return a + b; }
 * }
 */
export function tool<I extends InputSchema | undefined = undefined, O extends AnySchema | undefined = undefined>(
  options: ToolOptions<I> & { output?: O },
): ToolsmithDecorator<ToolParams<I>, LegacyToolParams<I>, ToolResult<O>, McpServer, LegacyModeOf<I>> {
  return decorator("tool", (key, paramSchema) => ({
    kind: "tool",
    key,
    options: options as ToolOptions,
    ...(paramSchema && options.input === undefined ? { paramSchema: paramSchema as never } : {}),
  })) as ToolsmithDecorator<ToolParams<I>, LegacyToolParams<I>, ToolResult<O>, McpServer, LegacyModeOf<I>>;
}

type ResourceDecorator<U extends string, I, L extends string> = ToolsmithDecorator<
  ResourceParams<U, I>,
  ResourceParams<U, I>,
  unknown,
  ResourceHost<NoInfer<L>>,
  "plain",
  NoInfer<L>
>;

/**
 * Publish a method as a resource at a fixed URI (the method gets the context), or as an RFC 6570 template
 * (the method gets the variables, typed from the template or from `input`, then the context).
 * @example
 * class Notes extends McpServer {
 *   notes = new Map<string, string>();
 *   @resource("notes://{id}", { description: "One note" })
 *   note({ id }: { id: string }) { return this.notes.get(id); }
 * }
 */
export function resource<
  const U extends string,
  I extends InputSchema | undefined = undefined,
  const L extends string = never,
>(uri: U, options: ResourceOptions<I, L> = {}): ResourceDecorator<U, I, L> {
  return decorator("resource", (key) => ({
    kind: "resource",
    key,
    uri,
    options: options as ResourceOptions,
  })) as ResourceDecorator<U, I, L>;
}

/**
 * Publish a method as a prompt; zod string schemas in `args` become its arguments.
 * @example
 * class Notes extends McpServer {
 *   @prompt({ description: "Summarise notes", args: { topic: z.string() } })
 *   summarise({ topic }: { topic: string }) { return `Summarise my notes on ${topic}`; }
 * }
 */
export function prompt<A extends InputSchema | undefined = undefined>(
  options: PromptOptions<A> = {},
): ToolsmithDecorator<PromptParams<A>, PromptParams<A>, PromptResult> {
  return decorator("prompt", (key) => ({
    kind: "prompt",
    key,
    options: options as PromptOptions,
  })) as ToolsmithDecorator<PromptParams<A>, PromptParams<A>, PromptResult>;
}
