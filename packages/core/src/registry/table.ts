import { DefinitionError } from "../wire/errors.js";
import type { Guard } from "./guards.js";

// The live registry's tables: compiled definitions by key, each with one handle that switches, changes or removes it.

/** What can be registered. */
export type RegisteredKind = "tool" | "resource" | "resourceTemplate" | "prompt";

/** What a list change concerns; resource templates count as resources. */
export type ChangeKind = "tools" | "resources" | "prompts";

/**
 * A registered tool, resource, template or prompt, live: switch it off and on, change it, or take it away. Every
 * change tells each open connection whose caller may see it that the list changed (handshake era notifications,
 * 2026-07-28 listen streams). Its methods are called on it: taken off it (destructured, passed as a callback)
 * they throw.
 * @example
 * ```ts source="examples/registry.ts#Registered"
 * const admin = server.tool({ name: "wipe", description: "Wipe all", handler: wipe });
 * admin.disable(); // gone from tools/list, and calling it answers as for an unknown tool
 * ```
 */
export interface Registered<D> {
  /** The name, URI or URI template it is registered under. */
  readonly key: string;
  readonly enabled: boolean;
  /** True once removed: every other call then throws. */
  readonly removed: boolean;
  /** How it is listed, in the newest revision's form (a tool's `inputSchema`, a resource's `uri`, …). */
  describe(): Readonly<Record<string, unknown>>;
  enable(): void;
  disable(): void;
  /** Replace some of its definition's fields; a change that does not compile throws and changes nothing. */
  update(changes: Partial<D>): void;
  remove(): void;
}

/**
 * Who may hear of a change: everyone (undefined), or only a caller one of these guards lets see an item it changed
 * (a change to items hidden from a caller is none of its business).
 */
export type Audience = readonly Guard[] | undefined;

/** What a handle did: what every process of a server applies alike (`@toolsmith/core`'s engine carries it). */
export type HandleOp = "enable" | "disable" | "remove";

/** Told of each change to a table: its list, who may hear of it, and the keys it changed. */
export type OnChange = (kind: ChangeKind, audience: Audience, keys: readonly string[]) => void;

// The audience of a change to an item with this definition (and, for an update, that one): everyone once one of
// them is unguarded.
function audienceOf(definition: unknown, other?: unknown): Audience {
  const guard = (definition as { guard?: Guard }).guard;
  if (guard === undefined) return undefined;
  if (other === undefined) return [guard];
  const second = (other as { guard?: Guard }).guard;
  return second === undefined ? undefined : [guard, second];
}

// What tells the kinds apart: the list a change to one concerns, how a clash is told.
const KINDS: Record<RegisteredKind, { list: ChangeKind; twice: (key: string) => string }> = {
  tool: { list: "tools", twice: (name) => `Tool "${name}" is defined twice; give each tool its own name` },
  resource: {
    list: "resources",
    twice: (uri) => `Resource "${uri}" is defined twice; give each resource its own URI`,
  },
  resourceTemplate: {
    list: "resources",
    twice: (uriTemplate) => `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
  },
  prompt: {
    list: "prompts",
    twice: (name) => `Prompt "${name}" is defined twice; give each prompt its own name`,
  },
};

export interface Entry<C> {
  compiled: C;
  enabled: boolean;
  handle?: Registered<never>;
}

/** What a table keeps of a definition: it, its key (name, URI or URI template), and how it is listed. */
interface Keyed {
  readonly definition: unknown;
  readonly key: string;
  readonly wire: object;
}

// One registry table per kind: its entries compiled, keyed by name, URI or URI template.
export class Table<D, C extends Keyed> {
  readonly map = new Map<string, Entry<C>>();
  /** The list a change to this table concerns. */
  readonly changeKind: ChangeKind;
  readonly twice: (key: string) => string;

  constructor(
    kind: RegisteredKind,
    readonly compile: (definition: D) => C,
    readonly changed: OnChange,
    /** Refuses a new key the server cannot take (it would be served twice through mounted modules). */
    readonly admit: (key: string) => void,
    /** Told of each handle's enable, disable or remove that changed something. */
    readonly handled: (op: HandleOp, key: string) => void = () => {},
  ) {
    const { list, twice } = KINDS[kind];
    this.changeKind = list;
    this.twice = twice;
  }

  /** True when an enabled entry has a guard: what the list shows depends on the caller. */
  guarded(): boolean {
    for (const entry of this.enabled()) if ((entry.definition as { guard?: Guard }).guard) return true;
    return false;
  }

  /** The guard of the entry under `key`, enabled or not: undefined when unguarded, null when there is none. */
  guardOf(key: string): Guard | undefined | null {
    const entry = this.map.get(key);
    return entry === undefined ? null : (entry.compiled.definition as { guard?: Guard }).guard;
  }

  /** Adds every entry's guard (enabled or not) to `guards`; false once one is unguarded (everyone may hear). */
  guardsInto(guards: Set<Guard>): boolean {
    for (const entry of this.map.values()) {
      const guard = (entry.compiled.definition as { guard?: Guard }).guard;
      if (guard === undefined) return false;
      guards.add(guard);
    }
    return true;
  }

  /** The enabled entry under `key`. */
  get(key: string): C | undefined {
    const entry = this.map.get(key);
    return entry?.enabled ? entry.compiled : undefined;
  }

  *enabled(): Iterable<C> {
    for (const entry of this.map.values()) if (entry.enabled) yield entry.compiled;
  }

  add(definition: D): Registered<D> {
    const compiled = this.compile(definition);
    const { key } = compiled;
    if (this.map.has(key)) throw new DefinitionError(this.twice(key));
    this.admit(key);
    const entry: Entry<C> = { compiled, enabled: true };
    this.map.set(key, entry);
    this.changed(this.changeKind, audienceOf(compiled.definition), [key]);
    return this.handle(entry);
  }

  /** The live handle of an entry: one per entry, whoever asks. */
  handle(entry: Entry<C>): Registered<D> {
    entry.handle ??= new Handle(this, entry) as Registered<never>;
    return entry.handle as Registered<D>;
  }
}

// An entry's handle: its methods on the prototype, so a table of thousands makes no closures per entry.
class Handle<D, C extends Keyed> implements Registered<D> {
  readonly #table: Table<D, C>;
  readonly #entry: Entry<C>;
  #removed = false;

  constructor(table: Table<D, C>, entry: Entry<C>) {
    this.#table = table;
    this.#entry = entry;
  }

  get key(): string {
    return this.#entry.compiled.key;
  }

  get enabled(): boolean {
    return this.#entry.enabled && !this.#removed;
  }

  get removed(): boolean {
    return this.#removed;
  }

  enable(): void {
    this.#set(true);
  }

  disable(): void {
    this.#set(false);
  }

  describe(): Readonly<Record<string, unknown>> {
    return this.#entry.compiled.wire as Readonly<Record<string, unknown>>;
  }

  update(changes: Partial<D>): void {
    this.#live("update()");
    const table = this.#table;
    const entry = this.#entry;
    const compiled = table.compile({ ...(entry.compiled.definition as D), ...changes });
    const before = entry.compiled.key;
    const after = compiled.key;
    if (after !== before) {
      if (table.map.has(after)) throw new DefinitionError(table.twice(after));
      table.admit(after);
      // Re-keyed in place: the list keeps its order.
      const entries = [...table.map];
      table.map.clear();
      for (const [key, value] of entries) table.map.set(key === before ? after : key, value);
    }
    const audience = entry.enabled ? audienceOf(entry.compiled.definition, compiled.definition) : [];
    entry.compiled = compiled;
    table.changed(table.changeKind, audience, after === before ? [after] : [before, after]);
  }

  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    const table = this.#table;
    const entry = this.#entry;
    const { key } = entry.compiled;
    table.map.delete(key);
    table.changed(table.changeKind, entry.enabled ? audienceOf(entry.compiled.definition) : [], [key]);
    table.handled("remove", key);
  }

  #live(what: string): void {
    if (this.#removed) throw new DefinitionError(`${what}: "${this.#entry.compiled.key}" was removed`);
  }

  #set(enabled: boolean): void {
    this.#live(enabled ? "enable()" : "disable()");
    if (this.#entry.enabled === enabled) return;
    this.#entry.enabled = enabled;
    const { key, definition } = this.#entry.compiled;
    this.#table.changed(this.#table.changeKind, audienceOf(definition), [key]);
    this.#table.handled(enabled ? "enable" : "disable", key);
  }
}
