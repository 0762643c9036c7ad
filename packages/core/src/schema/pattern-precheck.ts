import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE } from "./keywords.js";
import type { LinearPattern } from "./linear-regex.js";
import { searchedRepeat, type Unsupported, unsupportedSyntax } from "./pattern-syntax.js";

// A schema library (zod, ArkType, Valibot …) runs an author's `pattern` as a backtracking RegExp, where a short
// client string can take exponential time. Before the library runs, each string its listed JSON Schema surely
// holds to a pattern is checked on RE2 (linear time): a string that does not match is answered here, so the
// library's RegExp never sees one. A pattern this cannot put before the library is refused at registration.

/** Where patterns apply to a value, surely (through properties, items, allOf, references), built once. */
export interface Plan {
  patterns: Pattern[];
  /** The listed maxLength beside patterns: a longer string is refused before any pattern runs on it. */
  maxLength?: number;
  properties: Map<string, Plan>;
  additional?: Plan;
  items?: Plan;
  prefix: Plan[];
  keys?: Plan;
}

// The keywords the plan follows: their schemas apply wherever the node does.
const FOLLOWED: ReadonlySet<string> = new Set([
  "properties",
  "additionalProperties",
  "items",
  "prefixItems",
  "propertyNames",
  "allOf",
]);
// Every other keyword that holds sub-schemas (keywords.ts, plus draft-07's `dependencies`): a pattern there is not
// checked before the library (its schema may or may not apply), so it would run on strings that do not match it.
const MAYBE = [...SCHEMA_MAPS, ...SCHEMA_LISTS, ...SCHEMA_ONE, "dependencies"].filter((key) => !FOLLOWED.has(key));

/** A listed pattern and the flags of the library's RegExp for it (`i`, `m`, `s`: what changes a match). */
export interface Pattern {
  source: string;
  flags: string;
}

/** The library's own RegExps in a schema: each source with the flags it is used with. */
export type FlagsBySource = ReadonlyMap<string, ReadonlySet<string>>;

const ADVICE =
  "write it without lookarounds and backreferences (repeat counts up to 1000), or use jsonSchema() from @toolsmith/core/json-schema, whose patterns run on RE2 everywhere";

class Planner {
  readonly #memo = new Map<object, Plan>();
  found = false;
  #own: ReadonlySet<string> | undefined;
  #flags: FlagsBySource | undefined;
  constructor(
    readonly root: Record<string, unknown>,
    readonly what: string,
    readonly ownPatterns: () => ReadonlySet<string>,
    readonly regExps: () => FlagsBySource,
  ) {}

  // The library's own patterns, asked only once a pattern is met: a schema without one pays nothing for them.
  mine(pattern: string): boolean {
    this.#own ??= this.ownPatterns();
    return this.#own.has(pattern);
  }

  plan(node: unknown): Plan {
    const plan: Plan = { patterns: [], properties: new Map(), prefix: [] };
    if (!isPlainObject(node)) return plan;
    const known = this.#memo.get(node);
    if (known) return known;
    this.#memo.set(node, plan);
    this.#into(node, plan);
    return plan;
  }

  #into(node: Record<string, unknown>, plan: Plan): void {
    if (typeof node.pattern === "string" && !this.mine(node.pattern)) {
      const flags = this.#flagsOf(node.pattern);
      this.#check(node.pattern, flags);
      plan.patterns.push({ source: node.pattern, flags });
      this.found = true;
    }
    if (typeof node.maxLength === "number") plan.maxLength = Math.min(plan.maxLength ?? Infinity, node.maxLength);
    if (isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) plan.properties.set(key, this.plan(child));
    }
    if (node.additionalProperties !== undefined) plan.additional = this.plan(node.additionalProperties);
    if (node.items !== undefined) plan.items = this.plan(node.items);
    if (Array.isArray(node.prefixItems)) plan.prefix = node.prefixItems.map((child) => this.plan(child));
    if (node.propertyNames !== undefined) plan.keys = this.plan(node.propertyNames);
    // allOf and a reference apply where the node does: their plans merge into this one.
    const same = [...(Array.isArray(node.allOf) ? node.allOf : []), this.#target(node.$ref)];
    for (const part of same) if (isPlainObject(part)) this.#into(part, plan);
    for (const key of MAYBE) this.#refuseIn(node[key], key);
  }

  #target(ref: unknown): unknown {
    if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
    let node: unknown = this.root;
    for (const part of ref.slice(1).split("/").slice(1)) {
      node = isPlainObject(node) ? node[part.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
    }
    return node;
  }

  // A JSON Schema lists a pattern without its flags: they are read from the library's RegExp of the same source.
  #flagsOf(pattern: string): string {
    this.#flags ??= this.regExps();
    const used = [...(this.#flags.get(pattern) ?? [])].sort();
    if (used.length > 1) {
      throw new DefinitionError(
        `${this.what} has pattern ${JSON.stringify(pattern)} with different flags (${used.map((flags) => `"${flags}"`).join(", ")}), which its JSON Schema cannot tell apart, so no check before the library can hold each string to its own; spell the case-insensitive one with its letters in both cases ([Aa]) and drop the flag`,
      );
    }
    return used[0] ?? "";
  }

  #check(pattern: string, flags: string): void {
    const where = `${this.what} has pattern ${JSON.stringify(pattern)}${flags ? ` (flags ${flags})` : ""}`;
    const unsupported = unsupportedFlag(flags) ?? unsupportedSyntax(pattern, flags);
    if (unsupported !== undefined) {
      throw new DefinitionError(`${where}, which uses ${unsupported.what}: ${unsupported.fix ?? ADVICE}`);
    }
    const repeat = searchedRepeat(pattern, flags.includes("m"));
    if (repeat !== undefined) {
      throw new DefinitionError(
        `${where}, which the library's RegExp searches for at every position of a string (it does not start with ^${flags.includes("m") ? ", or the m flag lets ^ match after any line break" : ""}) and which repeats (${JSON.stringify(repeat)}): even a string that matches can then hold the server for seconds (27 characters against (\\w+\\s?)*$ took 7 s); anchor it at the start (^…), or use jsonSchema() from @toolsmith/core/json-schema, whose patterns run on RE2 everywhere`,
      );
    }
  }

  // Any author pattern under a keyword whose schemas may not apply: the library would run it on any string.
  #refuseIn(node: unknown, keyword: string, seen = new Set<object>()): void {
    if (!isPlainObject(node) && !Array.isArray(node)) return;
    if (seen.has(node)) return;
    seen.add(node);
    if (isPlainObject(node)) {
      const pattern = keyword === "patternProperties" ? Object.keys(node).find((key) => !this.mine(key)) : undefined;
      const own = typeof node.pattern === "string" && !this.mine(node.pattern) ? node.pattern : pattern;
      if (own !== undefined) {
        throw new DefinitionError(
          `${this.what} has pattern ${JSON.stringify(own)} under "${keyword}", where the library would run it on strings that need not match it, in time no bound holds; move it where it always applies (a property, items, allOf), or use jsonSchema() from @toolsmith/core/json-schema, whose patterns run on RE2 everywhere`,
        );
      }
    }
    for (const child of Object.values(node)) this.#refuseIn(child, keyword, seen);
  }
}

/**
 * The plan of where `listed` holds strings to patterns, or undefined when it holds none (then nothing is paid per
 * call). Throws a DefinitionError for a pattern RE2 cannot run or one the library may run on any string.
 * `ownPatterns`: the library's own patterns (its formats), left to it.
 */
export function patternPlan(
  listed: Record<string, unknown>,
  what: string,
  ownPatterns: () => ReadonlySet<string>,
  regExps: () => FlagsBySource = () => new Map(),
): Plan | undefined {
  const planner = new Planner(listed, what, ownPatterns, regExps);
  const plan = planner.plan(listed);
  return planner.found ? plan : undefined;
}

// Flags RE2 cannot honour: what the author should write instead.
function unsupportedFlag(flags: string): Unsupported | undefined {
  if (flags.includes("v")) return { what: "the v flag (its class syntax is not RE2's): use the u flag" };
  if (flags.includes("y")) return { what: "the y flag (sticky): start the pattern with ^ instead" };
  return undefined;
}

type Engine = (source: string, flags: string) => LinearPattern;
let engine: Engine | undefined;
let loading: Promise<Engine> | undefined;

// RE2 is loaded on first need: a server without patterns never pays for it at start-up.
function loadEngine(): Promise<Engine> {
  loading ??= import("./linear-regex.js").then((module) => {
    engine = module.linearPattern;
    return engine;
  });
  return loading;
}

/** Start loading RE2 now (a schema with patterns was registered), so the first call seldom waits for it. */
export function preloadEngine(): void {
  loadEngine().catch(() => undefined);
}

// A compiled schema's answer, by shape (compiled-schema.ts imports this file).
type Answer = { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };
type Validate = (value: unknown) => Answer | Promise<Answer>;

// A client's key in a path is cut, as every issue's is: a megabyte-long key is told of, not echoed.
const cut = (key: string) => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

/** `validate`, run only once every string `plan` holds to a pattern matches it on RE2. */
export function prechecked(plan: Plan, validate: Validate, what: string): Validate {
  const compiled = new Map<string, LinearPattern>();
  const compile = ({ source, flags }: Pattern): LinearPattern => {
    const key = `${flags}/${source}`;
    let pattern = compiled.get(key);
    if (pattern) return pattern;
    try {
      pattern = (engine as Engine)(source, flags);
    } catch (error) {
      // The syntax check at registration refuses what RE2 cannot compile; should one pass it, the call fails as an
      // internal error whose log names the tool and the pattern, and the pattern never runs unchecked.
      throw new DefinitionError(
        `${what} has a pattern RE2 could not compile on its first use: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    compiled.set(key, pattern);
    return pattern;
  };
  const check = (value: unknown): Answer | Promise<Answer> => {
    const miss = firstMiss(plan, value, [], compile);
    if (miss === undefined) return validate(value);
    const path = miss.path.length === 0 ? "(root)" : miss.path.map(cut).join(".");
    return { ok: false, issues: [{ path, message: miss.message }] };
  };
  return (value) => (engine ? check(value) : loadEngine().then(() => check(value)));
}

interface Miss {
  path: string[];
  message: string;
}

// Longer than `max` in code points, as JSON Schema counts: every library counts at least as many (UTF-16 units).
function tooLong(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let points = 0;
  for (const _ of text) if (++points > max) return true;
  return false;
}

function firstMiss(
  plan: Plan,
  value: unknown,
  path: string[],
  compile: (pattern: Pattern) => LinearPattern,
): Miss | undefined {
  if (typeof value === "string") {
    // The library runs its checks side by side: a string past its max length would still reach its RegExp.
    if (plan.patterns.length > 0 && plan.maxLength !== undefined && tooLong(value, plan.maxLength)) {
      return { path, message: `must NOT have more than ${plan.maxLength} characters` };
    }
    const pattern = plan.patterns.find((each) => !compile(each).test(value));
    return pattern === undefined
      ? undefined
      : { path, message: `must match pattern ${JSON.stringify(pattern.source)}` };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const child = plan.prefix[index] ?? plan.items;
      const miss = child && firstMiss(child, item, [...path, String(index)], compile);
      if (miss) return miss;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const key of Object.keys(value)) {
    const keyMiss = plan.keys && firstMiss(plan.keys, key, path, compile);
    if (keyMiss) return keyMiss;
    const child = plan.properties.has(key) ? plan.properties.get(key) : plan.additional;
    const miss = child && firstMiss(child, value[key], [...path, key], compile);
    if (miss) return miss;
  }
  return undefined;
}
