// The type of a Toolsmith decorator: one call signature per dialect, and the compile-time checks that make a class
// or a named method that does not fit a type error saying what to change.
import type { Completion, MaybePromise, RequestContext, Resource } from "@toolsmith/core";
import type { McpServer } from "./mcp-server.js";
import type { BRAND } from "./schema-class.js";

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

// The methods that options name, read from their literal types (exported for decorators.ts).
// A name typed only as `string` (a variable, or nothing inferred) is checked when the server is built instead.
export type ListNamed<L extends string> = [L] extends [never] ? never : NamedMethod<"list", L, ListMethod>;
export type GuardNamed<G extends string> = [G] extends [never]
  ? never
  : string extends G
    ? never
    : NamedMethod<"guard", G, GuardMethod>;
export type CompleteNamed<C> = {
  [K in keyof C & string]: C[K] extends string
    ? string extends C[K]
      ? never
      : NamedMethod<`complete.${K}`, C[K], CompleteMethod>
    : never;
}[keyof C & string];

/** What a method without `input` (or `args`) receives: no arguments. */
export type NoArguments = Record<string, never>;
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
