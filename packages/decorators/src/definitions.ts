import {
  createServer,
  DefinitionError,
  isUriTemplate,
  type Middleware,
  type PromptDefinition,
  type RequestContext,
  type ResourceTemplateDefinition,
  type Server,
  type StaticResourceDefinition,
  type ToolDefinition,
} from "@toolsmith/core";
import { type Invoke, nameOf, ownRegistrations, type Registration } from "./registry.js";

type AnyClass = abstract new (...args: never[]) => unknown;

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
  switch (registration.kind) {
    case "tool": {
      const { input, ...rest } = withUse(registration.options, methodUse);
      const definition: ToolDefinition = {
        ...rest,
        name,
        input: input ?? registration.paramSchema,
        handler: (args, ctx) => invoke(key, [args, ctx]),
      };
      server.tool(definition);
      return;
    }
    case "resource": {
      const { input, list, ...rest } = withUse(registration.options, methodUse);
      if (!isUriTemplate(registration.uri)) {
        if (input !== undefined || list !== undefined) {
          throw new DefinitionError(
            `Resource "${registration.uri}" is a fixed URI, so it takes neither input nor list; those are for templates like "notes://{id}"`,
          );
        }
        const definition: StaticResourceDefinition = {
          ...rest,
          uri: registration.uri,
          name,
          handler: (ctx: RequestContext) => invoke(key, [ctx]),
        };
        server.resource(definition);
        return;
      }
      const definition: ResourceTemplateDefinition = {
        ...rest,
        uriTemplate: registration.uri,
        name,
        input,
        handler: (variables, ctx) => invoke(key, [variables, ctx]),
      };
      if (list !== undefined) definition.list = (ctx) => invoke(list, [ctx]) as never;
      server.resource(definition);
      return;
    }
    case "prompt": {
      const definition: PromptDefinition = {
        ...withUse(registration.options, methodUse),
        name,
        handler: (args, ctx) => invoke(key, [args, ctx]),
      };
      server.prompt(definition);
      return;
    }
  }
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
  try {
    register(createServer({ name: "check", version: "0" }), registration, () => undefined);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    throw new DefinitionError(`@${registration.kind} on ${where(registration, className)}: ${error.message}`);
  }
}

function sameTarget(a: Registration, b: Registration): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "resource" && b.kind === "resource") return a.uri === b.uri;
  return nameOf(a) === nameOf(b);
}

function describe(registration: Registration): string {
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
  const chain: AnyClass[] = [];
  for (
    let current: unknown = ctor;
    typeof current === "function" && current !== stop;
    current = Object.getPrototypeOf(current)
  ) {
    chain.unshift(current as AnyClass);
  }
  const byMethod = new Map<string | symbol, Owned[]>();
  for (const klass of chain) {
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
    if (registration.kind === "resource" && registration.options.list !== undefined) {
      const list = registration.options.list;
      if (typeof (ctor.prototype as Record<string, unknown>)[list] !== "function") {
        throw new DefinitionError(
          `@resource("${registration.uri}") on ${where(registration, owner)} lists with "${list}", which is not a method of ${ctor.name}; name a method that returns the template's resources`,
        );
      }
    }
  }
  const registrations = all.map(({ registration }) => registration);
  COLLECTED.set(ctor, registrations);
  return registrations;
}
