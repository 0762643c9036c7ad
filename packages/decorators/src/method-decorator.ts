import { DefinitionError } from "@toolsmith/core";
import { checkOwn, checkRegistration } from "./definitions.js";
import { isTc39, withArticle } from "./dialect.js";
import { type Registration, recordLegacy, recordTc39 } from "./registry.js";
import { schemaOf } from "./schema-class.js";

// The server's identity fields and toServer live on the instance; a method of one of these names would hide them.
const RESERVED: ReadonlySet<string | symbol> = new Set([
  "name",
  "version",
  "title",
  "description",
  "instructions",
  "toServer",
]);

/**
 * What legacy decorator metadata says of a method. Without design:paramtypes (esbuild, vite without the plugin), a
 * tool with a parameter and no input may have meant a schema class that nothing can read: McpServer warns of it.
 */
export interface Legacy {
  paramSchema: unknown;
  noMetadata: boolean;
}

// `(_args, ctx)`: a first parameter named with a leading underscore is declared unused (as TypeScript's
// noUnusedParameters reads it), so it was not meant to carry a schema class. Read from the method's source text.
function firstParameterUnused(method: (...args: never[]) => unknown): boolean {
  const source = Function.prototype.toString.call(method);
  const open = source.indexOf("(");
  return open >= 0 && /^\s*_/.test(source.slice(open + 1));
}

/**
 * The runtime of `@tool`, `@resource` and `@prompt` in both dialects: refuses what is not a public instance method,
 * checks the registration `make` gives, and records it on the class.
 */
export function methodDecorator(
  kind: Registration["kind"],
  make: (key: string | symbol, legacy: Legacy | undefined) => Registration,
) {
  function accept(key: string | symbol, className: string | undefined, legacy: Legacy | undefined): Registration {
    if (RESERVED.has(key)) {
      const name = String(key);
      throw new DefinitionError(
        `@${kind} on ${className ? `${className}.` : ""}${name}: "${name}" belongs to McpServer; rename the method and set name: "${name}" in the decorator's options`,
      );
    }
    const registration = make(key, legacy);
    checkRegistration(registration, className);
    return registration;
  }
  return (...args: unknown[]): void => {
    if (isTc39(args)) {
      const [, context] = args;
      const name = String(context.name);
      // A method's context always has its name; only an anonymous class's lacks one.
      if (context.kind !== "method" || context.name === undefined) {
        throw new DefinitionError(`@${kind} decorates methods; "${name}" is ${withArticle(context.kind)}`);
      }
      if (context.static || context.private) {
        throw new DefinitionError(
          `@${kind} decorates public instance methods; make "${name}" neither static nor #private`,
        );
      }
      const registration = accept(context.name, undefined, undefined);
      checkOwn(recordTc39(context.metadata, registration), registration, undefined);
      return;
    }
    const [target, key, descriptor] = args as [unknown, string | symbol, PropertyDescriptor | undefined];
    const className = typeof target === "function" ? target.name : (target as object | null)?.constructor?.name;
    if (typeof target === "function") {
      throw new DefinitionError(`@${kind} decorates instance methods; make ${className}.${String(key)} non-static`);
    }
    if (typeof target !== "object" || target === null || typeof descriptor?.value !== "function") {
      throw new DefinitionError(`@${kind} decorates methods; ${className}.${String(key)} is not a method`);
    }
    const paramTypes = Reflect.getMetadata("design:paramtypes", target, key) as unknown[] | undefined;
    const noMetadata = !paramTypes && descriptor.value.length > 0 && !firstParameterUnused(descriptor.value);
    const legacy = { paramSchema: schemaOf(paramTypes?.[0]), noMetadata };
    const registration = accept(key, className, legacy);
    checkOwn(recordLegacy(target, registration), registration, className);
  };
}
