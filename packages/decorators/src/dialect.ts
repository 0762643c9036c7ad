// Where the two decorator dialects differ: how a decorator is called, and where a class keeps what they record.
// TC39 decorators record in the class's `context.metadata`; legacy ones in reflect-metadata.

/** A TC39 decorator's metadata object: the class's own, which inherits from its parent's. */
export type MetadataBag = Record<PropertyKey, unknown>;

/** The parts of a TC39 decorator's context that Toolsmith reads. */
export interface Tc39Context {
  kind: string;
  /** Undefined only for an anonymous class. */
  name: string | symbol | undefined;
  static?: boolean;
  private?: boolean;
  metadata: MetadataBag;
}

/**
 * The one place the two dialects are told apart: TC39 passes (value, context object), legacy (target, key,
 * descriptor) on a method and (class) on a class.
 */
export function isTc39(args: readonly unknown[]): args is [unknown, Tc39Context] {
  const context = args[1];
  return args.length === 2 && typeof context === "object" && context !== null && "kind" in context;
}

/** A TC39 context's kind after its article, for messages: "a field", "an accessor". */
export function withArticle(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}

/** TC39: the class's own slot under `key` in its metadata, made on first use (never the parent's it inherits). */
export function tc39Slot<T>(metadata: MetadataBag, key: symbol, make: () => T): T {
  if (!Object.hasOwn(metadata, key)) metadata[key] = make();
  return metadata[key] as T;
}

/** Legacy: the slot under `key` in reflect-metadata on `target` itself, made on first use. */
export function legacySlot<T>(target: object, key: symbol, make: () => T): T {
  const existing = Reflect.getOwnMetadata(key, target) as T | undefined;
  if (existing !== undefined) return existing;
  const made = make();
  Reflect.defineMetadata(key, made, target);
  return made;
}

/** What a class's own TC39 decorators left under `key` (not its parent's), if anything. */
export function ownTc39Slot<T>(ctor: object, key: symbol): T | undefined {
  const metadataKey = (Symbol as { metadata?: symbol }).metadata;
  const bag =
    metadataKey && Object.hasOwn(ctor, metadataKey)
      ? (ctor as Record<symbol, MetadataBag | null | undefined>)[metadataKey]
      : undefined;
  return bag && Object.hasOwn(bag, key) ? (bag[key] as T) : undefined;
}

/** What legacy decorators left under `key` on `target` itself, if anything. */
export function ownLegacySlot<T>(target: object, key: symbol): T | undefined {
  return Reflect.getOwnMetadata(key, target) as T | undefined;
}
