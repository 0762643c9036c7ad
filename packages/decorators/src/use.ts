import { DefinitionError, type Server } from "@toolsmith/core";
import type { Middleware } from "@toolsmith/core/middleware";
import { isTc39, legacySlot, ownLegacySlot, ownTc39Slot, tc39Slot, withArticle } from "./dialect.js";
import { prototypeChain } from "./prototype-chain.js";
import type { Registration } from "./registry.js";

// @use: middleware on a whole server class, or on one decorated method. Kept apart from the method registrations:
// class decorators run after method decorators, and middleware is not a thing clients list.

const KEY = Symbol.for("toolsmith.middleware");

interface Uses {
  /** The class's own middleware, in decorator order. */
  own: Middleware[];
  /** A method's middleware, by method key. */
  methods: Map<string | symbol, Middleware[]>;
}

const fresh = (): Uses => ({ own: [], methods: new Map() });

function check(middleware: Middleware[]): void {
  if (middleware.length === 0 || middleware.some((one) => typeof one !== "function")) {
    throw new DefinitionError("@use takes one or more middleware functions: (operation, next) => result");
  }
}

/**
 * Run middleware around every operation of a server class (on the class), or around one decorated method's.
 * Both decorator dialects; a subclass's middleware runs inside its parent's.
 * @example
 * ```ts source="examples/decorators.ts#use"
 * @use(requestLog(log))
 * class Notes extends McpServer {
 *   @use(rateLimit({ capacity: 3 }))
 *   @tool({ description: "Add a note", input: { title: z.string() } })
 *   add() {}
 * }
 * ```
 * @use(requestLog(log))
 * class Notes extends McpServer {
 *   @use(rateLimit({ capacity: 3 })) @tool({ description: "Add a note", input: { title: z.string() } }) add() {}
 * }
 */
export function use(...middleware: Middleware[]) {
  check(middleware);
  // biome-ignore lint/suspicious/noExplicitAny: one function serves class and method positions of both dialects.
  return (...args: any[]): void => {
    if (isTc39(args)) {
      const [, context] = args;
      const uses = tc39Slot(context.metadata, KEY, fresh);
      if (context.kind === "class") uses.own.push(...middleware);
      else if (context.kind === "method" && !context.static && context.name !== undefined) {
        uses.methods.set(context.name, [...(uses.methods.get(context.name) ?? []), ...middleware]);
      } else
        throw new DefinitionError(
          `@use goes on a server class or one of its decorated methods, not ${withArticle(context.kind)}`,
        );
      return;
    }
    const [target, second] = args;
    if (typeof target === "function" && args.length === 1) {
      legacySlot(target, KEY, fresh).own.push(...middleware);
      return;
    }
    if (typeof target === "object" && target !== null && (typeof second === "string" || typeof second === "symbol")) {
      const uses = legacySlot(target.constructor, KEY, fresh);
      uses.methods.set(second, [...(uses.methods.get(second) ?? []), ...middleware]);
      return;
    }
    throw new DefinitionError("@use goes on a server class or one of its decorated methods");
  };
}

// A class's own @use records, TC39's then legacy's.
function usesOf(ctor: object): Uses[] {
  return [ownTc39Slot<Uses>(ctor, KEY), ownLegacySlot<Uses>(ctor, KEY)].filter((uses) => uses !== undefined);
}

/** Install a class chain's own middleware on its server: parents' first (outermost). */
export function installMiddleware(server: Server, ctor: object, stop: object): void {
  for (const uses of prototypeChain(ctor, stop).flatMap(usesOf)) if (uses.own.length > 0) server.use(...uses.own);
}

/**
 * Each decorated method's middleware, parents' first: it becomes its definitions' own (`use`), so it runs only
 * around what the method serves, under whatever name it has now, once the caller may see it.
 */
export function methodMiddleware(
  ctor: object,
  stop: object,
  registrations: readonly Registration[],
): Map<string | symbol, Middleware[]> {
  const byMethod = new Map<string | symbol, Middleware[]>();
  for (const uses of prototypeChain(ctor, stop).flatMap(usesOf)) {
    for (const [key, middleware] of uses.methods) {
      if (!registrations.some((candidate) => candidate.key === key)) {
        throw new DefinitionError(
          `@use on ${String(key)}: the method is not a @tool, @resource or @prompt; put @use on the class instead`,
        );
      }
      byMethod.set(key, [...(byMethod.get(key) ?? []), ...middleware]);
    }
  }
  return byMethod;
}
