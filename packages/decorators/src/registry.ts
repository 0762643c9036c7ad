import type {
  AnySchema,
  Completer,
  Guard,
  InputSchema,
  PromptDefinition,
  ResourceTemplateDefinition,
  SkillDefinition,
  StaticResourceDefinition,
  TemplateStoreKey,
  ToolDefinition,
} from "@toolsmith/core";
import { legacySlot, type MetadataBag, ownLegacySlot, ownTc39Slot, tc39Slot } from "./dialect.js";
import type { AnyClass } from "./prototype-chain.js";

/**
 * Completers in a decorator's options, by argument or variable name: a function, or the name of a method of the
 * class, which runs with `this` the instance (as `list` does): `complete: { id: "issueIds" }`.
 */
export type CompleteOption = Readonly<Record<string, Completer | string>>;

/** A decorator's `guard`: a function of the request context, or the name of a method of the class that is one. */
export type GuardOption<G extends string = string> = Guard | G;

/** What `@tool` takes: core's tool definition, less the handler; `name` defaults to the method's name. */
export type ToolOptions<I extends InputSchema | undefined = InputSchema | undefined, G extends string = string> = Omit<
  ToolDefinition<I>,
  "handler" | "name" | "guard"
> & {
  name?: string;
  /** Who may see and call it: a function of the context, or the name of a method of the class. */
  guard?: GuardOption<G>;
};

/** What `@resource` takes besides the URI or template; `name` defaults to the method's name. */
export type ResourceOptions<
  I extends InputSchema | undefined = InputSchema | undefined,
  L extends string = string,
  C extends CompleteOption = CompleteOption,
  G extends string = string,
> = Omit<StaticResourceDefinition, "handler" | "uri" | "guard" | "storeKey"> &
  Pick<ResourceTemplateDefinition<I>, "input" | "listCache"> & {
    /**
     * The store key a fixed URI shows (a string), or, for a template, the keys it shows and the URI each feeds
     * (`{ prefix, uri }`): a change to one through the store tells its URI's subscribers, on every process, once.
     */
    storeKey?: string | TemplateStoreKey;
    /** Templates only: the name of a method of the class that returns the template's concrete resources. */
    list?: L;
    /** Templates only: a completer per variable, a function or the name of a method of the class. */
    complete?: C & CompleteOption;
    /** Who may see and read it: a function of the context, or the name of a method of the class. */
    guard?: GuardOption<G>;
  };

/** What `@prompt` takes: core's prompt definition, less the handler; `name` defaults to the method's name. */
export type PromptOptions<
  A extends InputSchema | undefined = InputSchema | undefined,
  C extends CompleteOption = CompleteOption,
  G extends string = string,
> = Omit<PromptDefinition<A>, "handler" | "name" | "guard" | "complete"> & {
  name?: string;
  /** A completer per argument, a function or the name of a method of the class. */
  complete?: C & CompleteOption;
  /** Who may see and get it: a function of the context, or the name of a method of the class. */
  guard?: GuardOption<G>;
};

/** What `@skill` takes besides the path. */
export interface SkillOptions<G extends string = string> {
  /** Who may see it: a function of the context, or the name of a method of the class. */
  guard?: GuardOption<G>;
}

/** What a `@skill` method returns, once, when the server is built: the skill's files, or a whole definition. */
export type SkillFiles = SkillDefinition["files"] | SkillDefinition;

/** One decorated method, as recorded on its class. */
export type Registration =
  | {
      readonly kind: "tool";
      readonly key: string | symbol;
      readonly options: ToolOptions;
      readonly paramSchema?: AnySchema;
      /** Legacy decorators only: the method takes parameters, but no design:paramtypes came with it. */
      readonly noMetadata?: boolean;
    }
  | {
      readonly kind: "resource";
      readonly key: string | symbol;
      readonly uri: string;
      readonly options: ResourceOptions;
    }
  | { readonly kind: "prompt"; readonly key: string | symbol; readonly options: PromptOptions }
  | {
      readonly kind: "skill";
      readonly key: string | symbol;
      readonly path: string;
      readonly options: SkillOptions & { readonly name?: undefined };
    };

const KEY = Symbol.for("toolsmith.registrations");

/** TC39 path: the class's metadata object (which inherits from its parent's: its own list, appended to). */
export function recordTc39(metadata: MetadataBag, registration: Registration): readonly Registration[] {
  const own = tc39Slot<Registration[]>(metadata, KEY, () => []);
  own.push(registration);
  return own;
}

/** Legacy path: reflect-metadata on the prototype. */
export function recordLegacy(prototype: object, registration: Registration): readonly Registration[] {
  const own = legacySlot<Registration[]>(prototype, KEY, () => []);
  own.push(registration);
  return own;
}

/** What one class (not its parents) registered, in either dialect. */
export function ownRegistrations(ctor: AnyClass): readonly Registration[] {
  const tc39 = ownTc39Slot<Registration[]>(ctor, KEY) ?? [];
  const legacy = ownLegacySlot<Registration[]>(ctor.prototype, KEY) ?? [];
  return tc39.length === 0 ? legacy : legacy.length === 0 ? tc39 : [...tc39, ...legacy];
}

/** The public name of a registration: its option, else the method's name (a symbol-named method needs the option). */
export function nameOf(registration: Registration): string | undefined {
  return registration.options.name ?? (typeof registration.key === "string" ? registration.key : undefined);
}

/** Calls a method of the instance by key. */
export type Invoke = (key: string | symbol, args: unknown[]) => unknown;
