import {
  type Completer,
  type Completion,
  createServer,
  DefinitionError,
  type Guard,
  type MaybePromise,
  type PromptDefinition,
  type RequestContext,
  type ResourceTemplateDefinition,
  type Server,
  type SkillDefinition,
  type StaticResourceDefinition,
  type TemplateStoreKey,
  type ToolDefinition,
} from "@toolsmith/core";
import { isUriTemplate } from "@toolsmith/core/internal";
import type { Middleware } from "@toolsmith/core/middleware";
import { type AnyClass, prototypeChain } from "./prototype-chain.js";
import {
  type CompleteOption,
  type GuardOption,
  type Invoke,
  nameOf,
  ownRegistrations,
  type Registration,
} from "./registry.js";

// Options that name a method of the class run it on the instance, with `this` bound, as the handler does.
function guardOf(guard: GuardOption | undefined, invoke: Invoke): Guard | undefined {
  return typeof guard === "string" ? (ctx) => invoke(guard, [ctx]) as boolean | undefined : guard;
}

function completersOf(complete: CompleteOption | undefined, invoke: Invoke): Record<string, Completer> | undefined {
  if (complete === undefined || complete === null || typeof complete !== "object") return complete;
  const completers: Record<string, Completer> = {};
  for (const [name, completer] of Object.entries(complete)) {
    completers[name] =
      typeof completer === "string"
        ? (value, context) => invoke(completer, [value, context]) as MaybePromise<Completion>
        : completer;
  }
  return completers;
}

// A method's @use joins its definition's own middleware: it follows the definition, not a name.
function withUse<T extends { use?: readonly Middleware[] }>(options: T, methodUse: readonly Middleware[]): T {
  if (methodUse.length === 0) return options;
  return { ...options, use: [...methodUse, ...(options.use ?? [])] };
}

/**
 * Register one decorated method on a core server, its handler calling the method through `invoke`, inside the
 * method's `@use` middleware.
 */
export function register(
  server: Server,
  registration: Registration,
  invoke: Invoke,
  methodUse: readonly Middleware[] = [],
): void {
  const { key } = registration;
  const name = nameOf(registration) ?? "";
  const guard = guardOf(registration.options.guard, invoke);
  switch (registration.kind) {
    case "tool": {
      const { input, ...rest } = withUse(registration.options, methodUse);
      const definition: ToolDefinition = {
        ...rest,
        name,
        guard,
        input: input ?? registration.paramSchema,
        handler: (args, ctx) => invoke(key, [args, ctx]),
      };
      server.tool(definition);
      return;
    }
    case "resource": {
      const { input, list, complete, listCache, storeKey, ...rest } = withUse(registration.options, methodUse);
      if (!isUriTemplate(registration.uri)) {
        if (input !== undefined || list !== undefined || complete !== undefined || listCache !== undefined) {
          throw new DefinitionError(
            `Resource "${registration.uri}" is a fixed URI, so it takes neither input, list, complete nor listCache; those are for templates like "notes://{id}"`,
          );
        }
        const definition: StaticResourceDefinition = {
          ...rest,
          uri: registration.uri,
          name,
          guard,
          handler: (ctx: RequestContext) => invoke(key, [ctx]),
        };
        // Core refuses a storeKey that is not a key (a template's { prefix, uri } here), saying so.
        if (storeKey !== undefined) definition.storeKey = storeKey as string;
        server.resource(definition);
        return;
      }
      const definition: ResourceTemplateDefinition = {
        ...rest,
        uriTemplate: registration.uri,
        name,
        guard,
        input,
        complete: completersOf(complete, invoke),
        handler: (variables, ctx) => invoke(key, [variables, ctx]),
      };
      if (list !== undefined) definition.list = (ctx) => invoke(list, [ctx]) as never;
      if (listCache !== undefined) definition.listCache = listCache;
      // Core refuses a storeKey that is not { prefix, uri } (a fixed URI's one key here), saying so.
      if (storeKey !== undefined) definition.storeKey = storeKey as TemplateStoreKey;
      server.resource(definition);
      return;
    }
    case "skill": {
      const made = invoke(key, []);
      if (made === null || typeof made !== "object") {
        throw new DefinitionError(
          `@skill("${registration.path}") on ${String(key)}: the method must return the skill's files, or readSkill(…) of its folder`,
        );
      }
      const { path, files } = made as Partial<SkillDefinition>;
      // readSkill(…) gives a whole definition; a plain object is the files themselves.
      const given = typeof path === "string" && typeof files === "object" ? (made as SkillDefinition) : undefined;
      const definition: SkillDefinition = {
        ...given,
        path: registration.path,
        files: given ? given.files : (made as SkillDefinition["files"]),
      };
      const chosen = guard ?? given?.guard;
      if (chosen !== undefined) definition.guard = chosen;
      server.skill(definition);
      return;
    }
    case "prompt": {
      const definition: PromptDefinition = {
        ...withUse(registration.options, methodUse),
        name,
        guard,
        complete: completersOf(registration.options.complete, invoke),
        handler: (args, ctx) => invoke(key, [args, ctx]),
      };
      server.prompt(definition);
      return;
    }
  }
}

/** The methods of the class a registration's options name, by where they are named (`list`, `complete.id`, `guard`). */
export function namedMethods(registration: Registration): [at: string, name: string][] {
  const { options } = registration;
  const named: [string, string][] = [];
  if (typeof options.guard === "string") named.push(["guard", options.guard]);
  if (registration.kind === "tool" || registration.kind === "skill") return named;
  if (registration.kind === "resource" && typeof registration.options.list === "string") {
    named.push(["list", registration.options.list]);
  }
  const { complete } = registration.options;
  if (complete !== null && typeof complete === "object") {
    for (const [variable, completer] of Object.entries(complete)) {
      if (typeof completer === "string") named.push([`complete.${variable}`, completer]);
    }
  }
  return named;
}

function methodName(key: string | symbol): string {
  return typeof key === "symbol" ? `[${key.toString()}]` : key;
}

function where(registration: Registration, className: string | undefined): string {
  return className ? `${className}.${methodName(registration.key)}` : methodName(registration.key);
}

/** Check one registration the moment its decorator runs (names, description, schemas, template variables). */
export function checkRegistration(registration: Registration, className: string | undefined): void {
  if (nameOf(registration) === undefined) {
    throw new DefinitionError(
      `@${registration.kind} on ${where(registration, className)}: a symbol-named method needs the name option`,
    );
  }
  // A skill's method runs when the server is built: now only its path is checked, with a SKILL.md that fits it.
  const placeholder = () =>
    registration.kind === "skill"
      ? { "SKILL.md": `---\nname: ${registration.path.split("/").at(-1)}\ndescription: checked\n---\n` }
      : undefined;
  try {
    register(createServer({ name: "check", version: "0" }), registration, placeholder);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    throw new DefinitionError(`@${registration.kind} on ${where(registration, className)}: ${error.message}`);
  }
}

function sameTarget(a: Registration, b: Registration): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "resource" && b.kind === "resource") return a.uri === b.uri;
  if (a.kind === "skill" && b.kind === "skill") return a.path === b.path;
  return nameOf(a) === nameOf(b);
}

function describeDecorator(registration: Registration): string {
  if (registration.kind === "skill") return `@skill("${registration.path}")`;
  return registration.kind === "resource" ? `@resource("${registration.uri}")` : `@${registration.kind}`;
}

function describe(registration: Registration): string {
  if (registration.kind === "skill") return `skill "${registration.path}"`;
  return registration.kind === "resource"
    ? `resource "${registration.uri}"`
    : `${registration.kind} "${nameOf(registration)}"`;
}

/** Refuse a second registration of one name (or URI), and a method decorated twice with one kind. */
export function checkOwn(own: readonly Registration[], added: Registration, className: string | undefined): void {
  for (const other of own) {
    if (other === added) continue;
    if (other.key === added.key && other.kind === added.kind) {
      throw new DefinitionError(
        `@${added.kind} on ${where(added, className)}: the method already has @${added.kind}; one method publishes one ${added.kind}`,
      );
    }
    if (sameTarget(other, added)) {
      throw new DefinitionError(
        `@${added.kind} on ${where(added, className)}: ${describe(added)} is already registered by ${where(other, className)}; give each its own ${added.kind === "resource" ? "URI" : "name"}`,
      );
    }
  }
}

/**
 * Check, once the instance is built, that each method the options name is one: a method, an arrow-function field
 * or a getter that returns a function, as TypeScript's check of the name allows.
 */
export function checkNamedMethods(
  registrations: readonly Registration[],
  instance: Record<string | symbol, unknown>,
  className: string,
): void {
  for (const registration of registrations) {
    for (const [at, method] of namedMethods(registration)) {
      if (typeof instance[method] !== "function") {
        throw new DefinitionError(
          `${describeDecorator(registration)} on ${where(registration, className)}: its ${at} names "${method}", which is not a method of ${className}; name a method of the class`,
        );
      }
    }
  }
}

interface Owned {
  registration: Registration;
  owner: string;
}

const COLLECTED = new WeakMap<AnyClass, readonly Registration[]>();

/**
 * Every registration of a class and its parents, parents first. A method a subclass decorates again has its
 * parent's registrations replaced, in place; clashes between different methods fail with what to change.
 */
export function collectRegistrations(ctor: AnyClass, stop: AnyClass): readonly Registration[] {
  const cached = COLLECTED.get(ctor);
  if (cached) return cached;
  const byMethod = new Map<string | symbol, Owned[]>();
  for (const klass of prototypeChain(ctor, stop)) {
    const own = ownRegistrations(klass);
    const keys = new Set(own.map((registration) => registration.key));
    for (const key of keys) {
      byMethod.set(
        key,
        own
          .filter((registration) => registration.key === key)
          .map((registration) => ({ registration, owner: klass.name })),
      );
    }
  }
  const all = [...byMethod.values()].flat();
  for (const [index, { registration, owner }] of all.entries()) {
    const clash = all.slice(0, index).find((other) => sameTarget(other.registration, registration));
    if (clash) {
      throw new DefinitionError(
        `${describe(registration)} is registered by both ${where(clash.registration, clash.owner)} and ${where(registration, owner)}; give each its own ${registration.kind === "resource" ? "URI" : "name"}, or decorate the same method to override it`,
      );
    }
  }
  const registrations = all.map(({ registration }) => registration);
  COLLECTED.set(ctor, registrations);
  return registrations;
}
