import {
  createServer,
  DefinitionError,
  isUriTemplate,
  type PromptDefinition,
  type RequestContext,
  type ResourceTemplateDefinition,
  type Server,
  type StaticResourceDefinition,
  type ToolDefinition,
} from "@toolsmith/core";
import { type Invoke, nameOf, ownRegistrations, type Registration } from "./registry.js";

type AnyClass = abstract new (...args: never[]) => unknown;

/** Register one decorated method on a core server, its handler calling the method through `invoke`. */
export function register(server: Server, registration: Registration, invoke: Invoke): void {
  const { key } = registration;
  const name = nameOf(registration);
  switch (registration.kind) {
    case "tool": {
      const { input, ...rest } = registration.options;
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
      const { input, list, ...rest } = registration.options;
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
        handler: (variables, ctx, uri) => invoke(key, [variables, ctx, uri]),
      };
      if (list !== undefined) definition.list = (ctx) => invoke(list, [ctx]) as never;
      server.resource(definition);
      return;
    }
    case "prompt": {
      const definition: PromptDefinition = {
        ...registration.options,
        name,
        handler: (args, ctx) => invoke(key, [args, ctx]),
      };
      server.prompt(definition);
      return;
    }
  }
}

function where(registration: Registration, className?: string): string {
  const method = typeof registration.key === "symbol" ? registration.key.toString() : registration.key;
  return className ? `${className}.${method}` : method;
}

/** Check one registration the moment its decorator runs (names, description, schemas, template variables). */
export function checkRegistration(registration: Registration, className?: string): void {
  if (nameOf(registration) === "") {
    throw new DefinitionError(
      `@${registration.kind} on ${where(registration, className)}: a symbol-named method needs a name option`,
    );
  }
  try {
    register(createServer({ name: "check", version: "0" }), registration, () => undefined);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    throw new DefinitionError(`@${registration.kind} on ${where(registration, className)}: ${error.message}`);
  }
}

/** Refuse a second method registering the same name within one class. */
export function checkNoClash(own: readonly Registration[], added: Registration, className?: string): void {
  const clash = own.find(
    (other) => other !== added && other.kind === added.kind && other.key !== added.key && sameTarget(other, added),
  );
  if (clash) {
    throw new DefinitionError(
      `@${added.kind} on ${where(added, className)}: ${describe(added)} is already registered by ${where(clash, className)}; give each its own ${added.kind === "resource" ? "URI" : "name"}`,
    );
  }
}

function sameTarget(a: Registration, b: Registration): boolean {
  if (a.kind === "resource" && b.kind === "resource") return a.uri === b.uri;
  return nameOf(a) === nameOf(b);
}

function describe(registration: Registration): string {
  return registration.kind === "resource"
    ? `resource "${registration.uri}"`
    : `${registration.kind} "${nameOf(registration)}"`;
}

const COLLECTED = new WeakMap<AnyClass, readonly Registration[]>();

/**
 * Every registration of a class and its parents, parents first. A method a subclass decorates again replaces
 * its parent's registration in place; clashes between different methods fail with what to change.
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
  const byMethod = new Map<string, Registration>();
  for (const klass of chain) {
    for (const registration of ownRegistrations(klass)) {
      byMethod.set(`${registration.kind} ${String(registration.key)}`, registration);
    }
  }
  const all = [...byMethod.values()];
  for (const registration of all) checkNoClash(all, registration, ctor.name);
  COLLECTED.set(ctor, all);
  return all;
}
