import type {
  Annotations,
  AnySchema,
  CacheHint,
  Icon,
  InputSchema,
  RequestContext,
  Resource,
  ToolAnnotations,
} from "@toolsmith/core";

/** What `@tool` takes. */
export interface ToolOptions<I extends InputSchema | undefined = InputSchema | undefined> {
  /** What the tool does: the model's whole manual for it. Required. */
  description: string;
  /** A zod object or a shape (`{ text: z.string() }`); the method's first parameter is typed from it. */
  input?: I;
  /** The schema `structuredContent` must fit; listed as `outputSchema`. */
  output?: AnySchema;
  /** Defaults to the method's name. */
  name?: string;
  title?: string;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** What `@resource` takes besides the URI or template. */
export interface ResourceOptions<I extends InputSchema | undefined = InputSchema | undefined> {
  /** Defaults to the method's name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  cache?: CacheHint;
  /** Templates only: a schema of the variables (exactly the template's variables), validated before the call. */
  input?: I;
  /** Templates only: the name of a method of the class that returns the template's concrete resources. */
  list?: string;
}

/** What `@prompt` takes. */
export interface PromptOptions<A extends InputSchema | undefined = InputSchema | undefined> {
  description?: string;
  /** zod string schemas: each becomes an argument, required unless optional. */
  args?: A;
  /** Defaults to the method's name. */
  name?: string;
  title?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** One decorated method, as recorded on its class. */
export type Registration =
  | {
      readonly kind: "tool";
      readonly key: string | symbol;
      readonly options: ToolOptions;
      readonly paramSchema?: AnySchema;
    }
  | {
      readonly kind: "resource";
      readonly key: string | symbol;
      readonly uri: string;
      readonly options: ResourceOptions;
    }
  | { readonly kind: "prompt"; readonly key: string | symbol; readonly options: PromptOptions };

const KEY = Symbol.for("toolsmith.registrations");

type MetadataBag = Record<PropertyKey, unknown>;

/** TC39 path: the class's metadata object (which inherits from its parent's: copy before appending). */
export function recordTc39(metadata: MetadataBag, registration: Registration): readonly Registration[] {
  if (!Object.hasOwn(metadata, KEY)) metadata[KEY] = [];
  const own = metadata[KEY] as Registration[];
  own.push(registration);
  return own;
}

/** Legacy path: reflect-metadata on the prototype. */
export function recordLegacy(prototype: object, registration: Registration): readonly Registration[] {
  const own = (Reflect.getOwnMetadata(KEY, prototype) as Registration[] | undefined) ?? [];
  own.push(registration);
  Reflect.defineMetadata(KEY, own, prototype);
  return own;
}

/** What one class (not its parents) registered, in either dialect. */
export function ownRegistrations(ctor: abstract new (...args: never[]) => unknown): readonly Registration[] {
  const metadataKey = (Symbol as { metadata?: symbol }).metadata;
  const bag =
    metadataKey && Object.hasOwn(ctor, metadataKey)
      ? (ctor as unknown as Record<symbol, MetadataBag>)[metadataKey]
      : undefined;
  const tc39 = bag && Object.hasOwn(bag, KEY) ? (bag[KEY] as Registration[]) : [];
  const legacy = (Reflect.getOwnMetadata(KEY, ctor.prototype) as Registration[] | undefined) ?? [];
  return tc39.length === 0 ? legacy : legacy.length === 0 ? tc39 : [...tc39, ...legacy];
}

/** The public name of a registration: its option, else the method's name. */
export function nameOf(registration: Registration): string {
  return registration.options.name ?? (typeof registration.key === "string" ? registration.key : "");
}

/** The handler signature each kind of method has. */
export type Invoke = (key: string | symbol, args: unknown[]) => unknown;

/** Resources a template's `list` method returns. */
export type ListResult = Resource[] | Promise<Resource[]>;

export type { RequestContext };
