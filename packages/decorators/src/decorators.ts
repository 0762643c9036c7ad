import "./polyfills.js";
import { DefinitionError, type InferInput, type InputSchema, type RequestContext } from "@toolsmith/core";
import { checkNoClash, checkRegistration } from "./definitions.js";
import {
  type PromptOptions,
  type Registration,
  type ResourceOptions,
  recordLegacy,
  recordTc39,
  type ToolOptions,
} from "./registry.js";
import { schemaOf } from "./schema-class.js";
import type { IsTemplate, TemplateVariables } from "./template-types.js";

/**
 * A method decorator that works in both dialects; `Params` is what the method may declare, so a method
 * whose parameters do not fit is a compile error.
 */
export interface MethodDecorator<Params extends unknown[]> {
  /** TC39 standard decorators. */
  <This, Method extends (this: This, ...args: Params) => unknown>(
    value: Method,
    context: ClassMethodDecoratorContext<This, Method>,
  ): void;
  /** Legacy `experimentalDecorators`. */
  <Method extends (...args: Params) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<Method>,
  ): void;
}

// biome-ignore lint/suspicious/noExplicitAny: without `input`, a legacy schema-class parameter may supply the type.
type Untyped = any;

/** A tool method's parameters: the arguments (typed from `input`) and the request context. */
export type ToolParams<I> = [args: [I] extends [undefined] ? Untyped : InferInput<I>, ctx: RequestContext];

/** A resource method's parameters: the context for a fixed URI; variables, context and URI for a template. */
export type ResourceParams<U extends string, I> =
  IsTemplate<U> extends true
    ? [variables: [I] extends [undefined] ? TemplateVariables<U> : InferInput<I>, ctx: RequestContext, uri: string]
    : [ctx: RequestContext];

/** A prompt method's parameters: the arguments (typed from `args`) and the request context. */
export type PromptParams<A> = [
  args: [A] extends [undefined] ? Record<string, never> : InferInput<A>,
  ctx: RequestContext,
];

interface Tc39Context {
  kind: string;
  name: string | symbol;
  static: boolean;
  private: boolean;
  metadata: Record<PropertyKey, unknown>;
}

// The one place the two dialects are told apart: TC39 passes (value, context object), legacy (target, key, descriptor).
function isTc39(args: unknown[]): args is [unknown, Tc39Context] {
  const context = args[1];
  return args.length === 2 && typeof context === "object" && context !== null && "kind" in context;
}

function decorator(kind: Registration["kind"], make: (key: string | symbol, paramSchema: unknown) => Registration) {
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
      const registration = make(context.name, undefined);
      checkRegistration(registration);
      checkNoClash(recordTc39(context.metadata, registration), registration);
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
    const paramTypes = Reflect.getMetadata?.("design:paramtypes", target, key) as unknown[] | undefined;
    const registration = make(key, schemaOf(paramTypes?.[0]));
    checkRegistration(registration, className);
    checkNoClash(recordLegacy(target, registration), registration, className);
  };
}

/**
 * Publish a method as a tool. Its name defaults to the method's; its first parameter is typed from `input`.
 * @example
 * class Calc extends McpServer {
 *   @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
 *   add({ a, b }: { a: number; b: number }) { return a + b; }
 * }
 */
export function tool<I extends InputSchema | undefined = undefined>(
  options: ToolOptions<I>,
): MethodDecorator<ToolParams<I>> {
  return decorator("tool", (key, paramSchema) => ({
    kind: "tool",
    key,
    options: options as ToolOptions,
    ...(paramSchema && options.input === undefined ? { paramSchema: paramSchema as never } : {}),
  })) as MethodDecorator<ToolParams<I>>;
}

/**
 * Publish a method as a resource at a fixed URI, or as a resource template (RFC 6570) whose variables arrive
 * as the first parameter.
 * @example
 * class Notes extends McpServer {
 *   @resource("notes://{id}", { description: "One note" })
 *   note({ id }: { id: string }) { return this.notes.get(id); }
 * }
 */
export function resource<const U extends string, I extends InputSchema | undefined = undefined>(
  uri: U,
  options: ResourceOptions<I> = {},
): MethodDecorator<ResourceParams<U, I>> {
  return decorator("resource", (key) => ({
    kind: "resource",
    key,
    uri,
    options: options as ResourceOptions,
  })) as MethodDecorator<ResourceParams<U, I>>;
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
): MethodDecorator<PromptParams<A>> {
  return decorator("prompt", (key) => ({ kind: "prompt", key, options: options as PromptOptions })) as MethodDecorator<
    PromptParams<A>
  >;
}
