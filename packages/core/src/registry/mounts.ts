import type { RequestContext } from "../context/context.js";
import { type Middleware, runOwn } from "../middleware/compose.js";
import { DefinitionError } from "../wire/errors.js";
import { andThen, isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { Registered, RegisteredKind, Table } from "./table.js";

/** What the rules of modules need of a mounted server's router (router.ts's Router fills in `R`). */
export interface ModuleRouter {
  registered(kind: RegisteredKind, key: string): Registered<never> | undefined;
}

/** Another server's router, served under a prefix. */
export interface Mount<R extends ModuleRouter = ModuleRouter> {
  readonly prefix: string;
  readonly router: R;
  /** The module's own modules and parents, for the rules that walk the tree. */
  readonly modules: Modules<R>;
  /**
   * The module's own middleware, as it is now (`use` after mounting counts). It runs around what the module serves,
   * seeing it as the module alone would (its own names), so whatever the module enforces standalone it enforces
   * mounted; what it answers is the module's answer.
   */
  readonly middleware: () => readonly Middleware[];
  /** How clash messages name it. */
  readonly source: string;
  /** Its listed tools and prompts, renamed once per listed object. */
  readonly names: WeakMap<object, object>;
}

/** A request's params as they came: what a mounted module's middleware sees, renamed for the module. */
export type Params = Readonly<Record<string, unknown>>;

/** A request's params as they came, when a method has none. */
export const NO_PARAMS: Params = Object.freeze({});

/** What a module's list method answered (through its middleware): the array under `key`. */
function itemsOf(result: Record<string, unknown>, key: string, method: string, mount: Mount): unknown[] {
  const items = result[key];
  if (!Array.isArray(items)) {
    throw new TypeError(`a middleware of ${mount.source} answered ${method} without a "${key}" array`);
  }
  return items;
}

function renamed<T>(mount: Mount, item: T): T {
  let copy = mount.names.get(item as object) as T | undefined;
  if (!copy) {
    copy = { ...item, name: `${mount.prefix}.${(item as { name: string }).name}` };
    mount.names.set(item as object, copy as object);
  }
  return copy;
}

/** The owning router's own table of each kind. */
type Tables = (kind: RegisteredKind) => Table<never, never>;

// One router's mounted modules and the routers it is mounted in: the rules that keep each key served once in the tree.
export class Modules<R extends ModuleRouter> {
  readonly #mounts: Mount<R>[] = [];
  /** The servers this one is mounted in, under which prefix. */
  readonly #parents: { parent: Modules<R>; prefix: string; source: string }[] = [];
  readonly #table: Tables;

  constructor(table: Tables) {
    this.#table = table;
  }

  get list(): readonly Mount<R>[] {
    return this.#mounts;
  }

  /** Take `router` (whose modules are `modules`) under `prefix`, refusing any key the tree would serve twice. */
  add(prefix: string, router: R, modules: Modules<R>, source: string, middleware: () => readonly Middleware[]): void {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(prefix)) {
      throw new DefinitionError(
        `Mount prefix ${JSON.stringify(prefix)} is invalid: use 1–32 characters of A-Z, a-z, 0-9, "_" and "-"`,
      );
    }
    if (modules === this || modules.#reaches(this)) {
      throw new DefinitionError(
        `${source} already serves this server, directly or through its modules: mounting it would make a cycle`,
      );
    }
    const taken = this.#mounts.find((mount) => mount.prefix === prefix);
    if (taken)
      throw new DefinitionError(
        `Mount prefix "${prefix}" is taken by ${taken.source}; mount ${source} under another prefix`,
      );
    const mount: Mount<R> = { prefix, router, modules, middleware, source, names: new WeakMap() };
    for (const kind of ["tool", "prompt"] as const) {
      for (const name of this.#table(kind).map.keys()) {
        if (name.startsWith(`${prefix}.`)) {
          throw new DefinitionError(
            `${kind === "tool" ? "Tool" : "Prompt"} "${name}" is defined by this server and would also be ${source}'s, mounted at "${prefix}"; rename one, or mount under another prefix`,
          );
        }
      }
    }
    // Everything the module serves, its own modules' too, as this server (and each above it) would serve it.
    for (const kind of ["tool", "prompt", "resource", "resourceTemplate"] as const) {
      for (const key of modules.#keys(kind)) this.#admitFromModule(kind, key, prefix, source, modules);
    }
    this.#mounts.push(mount);
    modules.#parents.push({ parent: this, prefix, source });
  }

  // A key this server takes must not be served twice anywhere in its tree of modules: not under one of its own
  // modules' prefixes, not as a URI a parent or another module serves, and no tool name over 64 characters as the
  // clients of any parent see it. Asked on every registration and rename, here and in every module.
  admit(kind: RegisteredKind, key: string): void {
    if (kind === "tool" || kind === "prompt") {
      const inModule = this.find(key);
      if (inModule) {
        throw new DefinitionError(
          `${kind === "tool" ? "Tool" : "Prompt"} "${key}" would shadow ${inModule.mount.source}, mounted at "${inModule.mount.prefix}"; rename it, or mount under another prefix`,
        );
      }
    } else {
      const module = this.ownerOf(kind, key);
      if (module) {
        throw new DefinitionError(
          `${kind === "resource" ? "Resource" : "Resource template"} "${key}" is defined twice: ${module.source} serves it already; give one another ${kind === "resource" ? "URI" : "template"}`,
        );
      }
    }
    for (const link of this.#parents) link.parent.#admitFromModule(kind, key, link.prefix, link.source, this);
  }

  // A module of this server takes `key`: it is `prefix.key` here (tools, prompts), or the same URI.
  #admitFromModule(kind: RegisteredKind, key: string, prefix: string, source: string, from: Modules<R>): void {
    let seen = key;
    if (kind === "tool" || kind === "prompt") {
      seen = `${prefix}.${key}`;
      if (kind === "tool" && seen.length > 64) {
        throw new DefinitionError(
          `Tool "${seen}" (from ${source}) is over 64 characters as this server lists it; use a shorter name or prefix`,
        );
      }
    } else {
      const owner = this.#owner(kind, key, from);
      if (owner) {
        const what = kind === "resource" ? "Resource" : "Resource template";
        throw new DefinitionError(
          `${what} "${key}" is served by both ${owner} and ${source}; give one another ${kind === "resource" ? "URI" : "template"}`,
        );
      }
    }
    for (const link of this.#parents) link.parent.#admitFromModule(kind, seen, link.prefix, link.source, this);
  }

  /**
   * Serve `prefix.name` in the module under `prefix`, inside its middleware, named as the module knows it (a name
   * under a module's prefix is that module's, served or not: no parent may take one). Undefined when no module has it.
   */
  inModule<T extends object>(
    kind: "tool" | "prompt",
    name: string,
    params: Params,
    ctx: RequestContext,
    serve: (router: R, rest: string, local: Params) => MaybePromise<T>,
  ): MaybePromise<T> | undefined {
    const inModule = this.find(name);
    if (!inModule) return undefined;
    const { mount, rest } = inModule;
    const local = { ...params, name: rest };
    const [method, operation] = kind === "tool" ? (["tools/call", "call"] as const) : (["prompts/get", "get"] as const);
    return runOwn(mount.middleware(), method, operation, local, ctx, () => serve(mount.router, rest, local));
  }

  /** The module whose prefix starts `name` (`github.create_issue` → github's `create_issue`). */
  find(name: string): { mount: Mount<R>; rest: string } | undefined {
    const dot = name.indexOf(".");
    if (dot < 1) return undefined;
    const prefix = name.slice(0, dot);
    const mount = this.#mounts.find((candidate) => candidate.prefix === prefix);
    return mount ? { mount, rest: name.slice(dot + 1) } : undefined;
  }

  /** The module whose tree serves the resource or template `key`. */
  ownerOf(kind: "resource" | "resourceTemplate", key: string): Mount<R> | undefined {
    return this.#mounts.find((mount) => mount.modules.#owner(kind, key));
  }

  // Through a module: its tools and prompts by their public names, its resources by URI.
  registered(kind: RegisteredKind, key: string): Registered<never> | undefined {
    if (kind === "tool" || kind === "prompt") {
      const inModule = this.find(key);
      return inModule?.mount.router.registered(kind, inModule.rest);
    }
    for (const mount of this.#mounts) {
      const found = mount.router.registered(kind, key);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * A list of one kind for this caller: `own`, then each module's as its own middleware lets it through (`list` asks
   * its router), tools and prompts renamed under their prefixes. The module's middleware sees its whole list: paging
   * is the parent's.
   */
  listed<T>(
    own: T[],
    method: string,
    key: string,
    ctx: RequestContext,
    params: Params,
    list: (router: R, params: Params) => MaybePromise<T[]>,
  ): MaybePromise<T[]> {
    if (this.#mounts.length === 0) return own;
    const { cursor: _parents, ...local } = params;
    const named = key === "tools" || key === "prompts";
    const lists = this.#mounts.map((mount) => {
      const serve = () => andThen(list(mount.router, local), (items) => ({ [key]: items }));
      return andThen(runOwn(mount.middleware(), method, "list", local, ctx, serve), (result) => {
        const items = itemsOf(result, key, method, mount) as T[];
        return named ? items.map((item) => renamed(mount, item)) : items;
      });
    });
    const join = (found: T[][]) => [...own, ...found.flat()];
    return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as T[][]);
  }

  // The keys this router serves, its modules' included (tools and prompts under their prefixes).
  #keys(kind: RegisteredKind): string[] {
    const named = kind === "tool" || kind === "prompt";
    return [
      ...this.#table(kind).map.keys(),
      ...this.#mounts.flatMap((mount) =>
        mount.modules.#keys(kind).map((key) => (named ? `${mount.prefix}.${key}` : key)),
      ),
    ];
  }

  #reaches(target: Modules<R>): boolean {
    return this.#mounts.some((mount) => mount.modules === target || mount.modules.#reaches(target));
  }

  // Who serves `key` in this server's tree, leaving out the module `except` (which is asking for it).
  #owner(kind: "resource" | "resourceTemplate", key: string, except?: Modules<R>): string | undefined {
    if (this.#table(kind).map.has(key)) return "this server";
    return this.#mounts.find((mount) => mount.modules !== except && mount.modules.#owner(kind, key))?.source;
  }
}
