import type { RequestContext } from "./context.js";
import { DefinitionError } from "./errors.js";
import type { MaybePromise } from "./maybe.js";
import { describeOperation, type Middleware, type OperationKind, runMiddleware } from "./middleware.js";
import type { Registered, RegisteredKind, Table } from "./registry.js";
import type { Router } from "./router.js";
import type { Prompt, ResourceTemplate, Tool } from "./types.js";

/** Another server's router, served under a prefix. */
export interface Mount {
  readonly prefix: string;
  readonly router: Router;
  /** The module's own modules and parents, for the rules that walk the tree. */
  readonly modules: Modules;
  /** Run the module's own middleware around one of its operations. */
  around<T>(
    method: string,
    kind: OperationKind,
    params: Record<string, unknown>,
    ctx: RequestContext,
    serve: () => MaybePromise<T>,
  ): MaybePromise<T>;
  /** How clash messages name it. */
  readonly source: string;
  /** Its listed tools and prompts, renamed once per listed object. */
  readonly names: WeakMap<object, object>;
}

function renamed<T extends { name: string }>(mount: Mount, item: T): T {
  let copy = mount.names.get(item) as T | undefined;
  if (!copy) {
    copy = { ...item, name: `${mount.prefix}.${item.name}` };
    mount.names.set(item, copy);
  }
  return copy;
}

/** The owning router's own table of each kind. */
type Tables = (kind: RegisteredKind) => Table<never, never>;

// One router's mounted modules and the routers it is mounted in: the rules that keep each key served once in the tree.
export class Modules {
  readonly #mounts: Mount[] = [];
  /** The servers this one is mounted in, under which prefix. */
  readonly #parents: { parent: Modules; prefix: string; source: string }[] = [];
  readonly #table: Tables;

  constructor(table: Tables) {
    this.#table = table;
  }

  get list(): readonly Mount[] {
    return this.#mounts;
  }

  /** Take `router` (whose modules are `modules`) under `prefix`, refusing any key the tree would serve twice. */
  add(prefix: string, router: Router, modules: Modules, source: string, middleware: () => readonly Middleware[]): void {
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
    const around: Mount["around"] = (method, kind, params, ctx, serve) => {
      const own = middleware();
      if (own.length === 0) return serve();
      const operation = describeOperation(
        method,
        kind,
        params,
        ctx as RequestContext & { abort(reason: unknown): void },
      );
      return runMiddleware(own, operation, serve as () => MaybePromise<Record<string, unknown>>) as MaybePromise<never>;
    };
    const mount: Mount = { prefix, router, modules, source, names: new WeakMap(), around };
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
  #admitFromModule(kind: RegisteredKind, key: string, prefix: string, source: string, from: Modules): void {
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

  /** The module whose prefix starts `name` (`github.create_issue` → github's `create_issue`). */
  find(name: string): { mount: Mount; rest: string } | undefined {
    const dot = name.indexOf(".");
    if (dot < 1) return undefined;
    const prefix = name.slice(0, dot);
    const mount = this.#mounts.find((candidate) => candidate.prefix === prefix);
    return mount ? { mount, rest: name.slice(dot + 1) } : undefined;
  }

  /** The module that serves the tool or prompt `name` under its prefix (guards aside). */
  serving(kind: "tool" | "prompt", name: string): { mount: Mount; rest: string } | undefined {
    const inModule = this.find(name);
    if (inModule === undefined || !inModule.mount.modules.#serves(kind, inModule.rest)) return undefined;
    return inModule;
  }

  /** The module whose tree serves the resource or template `key`. */
  ownerOf(kind: "resource" | "resourceTemplate", key: string): Mount | undefined {
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

  /** The modules' tools for this caller, renamed under their prefixes. */
  tools(ctx: RequestContext): Tool[] {
    return this.#mounts.flatMap((mount) => mount.router.listTools(ctx).map((tool) => renamed(mount, tool)));
  }

  prompts(ctx: RequestContext): Prompt[] {
    return this.#mounts.flatMap((mount) => mount.router.listPrompts(ctx).map((prompt) => renamed(mount, prompt)));
  }

  templates(ctx: RequestContext): ResourceTemplate[] {
    return this.#mounts.flatMap((mount) => mount.router.listResourceTemplates(ctx));
  }

  // Whether a tool or prompt of this name is served here or in a module below (guards aside).
  #serves(kind: "tool" | "prompt", name: string): boolean {
    return this.#table(kind).get(name) !== undefined || this.serving(kind, name) !== undefined;
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

  #reaches(target: Modules): boolean {
    return this.#mounts.some((mount) => mount.modules === target || mount.modules.#reaches(target));
  }

  // Who serves `key` in this server's tree, leaving out the module `except` (which is asking for it).
  #owner(kind: "resource" | "resourceTemplate", key: string, except?: Modules): string | undefined {
    if (this.#table(kind).map.has(key)) return "this server";
    return this.#mounts.find((mount) => mount.modules !== except && mount.modules.#owner(kind, key))?.source;
  }
}
