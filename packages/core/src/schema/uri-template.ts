import { DefinitionError } from "../wire/errors.js";

/** Variables read out of a URI: exploded variables (`{/path*}`, `{?tags*}`) give arrays. */
export type UriVariables = Record<string, string | string[]>;

/**
 * An RFC 6570 URI template compiled for matching (levels 1–4: all operators, prefixes and explode).
 * @example
 * ```ts source="examples/schema.ts#UriTemplate"
 * parseUriTemplate("notes://{id}").match("notes://42"); // { id: "42" }
 * ```
 */
export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  /** The variables of `uri` when it fits this template, else undefined. */
  match(uri: string): UriVariables | undefined;
}

interface VarSpec {
  name: string;
  explode: boolean;
  prefix: number | undefined;
}

interface Expression {
  operator: string;
  vars: VarSpec[];
}

type Part = string | Expression;

/** URIs longer than this never match a template (a bound on matching time). */
export const MAX_URI_LENGTH = 8192;

const OPERATORS = new Set(["", "+", "#", ".", "/", ";", "?", "&"]);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function parseExpression(body: string, template: string): Expression {
  const first = body.charAt(0);
  const operator = OPERATORS.has(first) && first !== "" ? first : "";
  if ("=,!@|".includes(first) && first !== "") {
    throw new DefinitionError(
      `URI template "${template}" uses the reserved operator "${first}"; use one of + # . / ; ? &`,
    );
  }
  const vars = body
    .slice(operator.length)
    .split(",")
    .map((spec): VarSpec => {
      const explode = spec.endsWith("*");
      const [name = "", prefixText] = (explode ? spec.slice(0, -1) : spec).split(":");
      if (explode && prefixText !== undefined) {
        throw new DefinitionError(
          `URI template "${template}" gives "${name}" both a prefix and "*"; a variable takes one modifier or none`,
        );
      }
      if (!VARNAME.test(name)) {
        throw new DefinitionError(`URI template "${template}" has an invalid variable name "${name}"`);
      }
      const prefix = prefixText === undefined ? undefined : Number(prefixText);
      if (prefix !== undefined && !(Number.isInteger(prefix) && prefix > 0 && prefix < 10000)) {
        throw new DefinitionError(`URI template "${template}" has an invalid prefix ":${prefixText}" on "${name}"`);
      }
      return { name, explode, prefix };
    });
  return { operator, vars };
}

function parseParts(template: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{", at);
    const close = template.indexOf("}", at);
    if (close !== -1 && (open === -1 || close < open)) {
      throw new DefinitionError(`URI template "${template}" has a "}" with no "{" before it`);
    }
    if (open === -1) {
      parts.push(template.slice(at));
      break;
    }
    if (open > at) parts.push(template.slice(at, open));
    if (close === -1) throw new DefinitionError(`URI template "${template}" has a "{" that is never closed`);
    const body = template.slice(open + 1, close);
    if (body.length === 0 || body.includes("{")) {
      throw new DefinitionError(`URI template "${template}" has an empty or nested expression`);
    }
    parts.push(parseExpression(body, template));
    at = close + 1;
  }
  return parts;
}

// What a value may hold when read back: anything but the delimiters around it. A value also stops at the first
// character that follows it in the template, and every quantifier is greedy: matching stays linear in the URI's
// length (lazy, overlapping groups backtrack polynomially on a URI that does not fit).
function valuePattern(expression: Expression, spec: VarSpec, stop: string): string {
  const { operator } = expression;
  const reserved = operator === "+" || operator === "#";
  const base = reserved ? "?#" : operator === "." ? "/?#.," : "/?#,;&";
  const excluded = reserved || stop === "" || base.includes(stop) ? base : base + stop;
  const chars = `[^${escapeClass(excluded)}]`;
  if (spec.explode && (operator === "" || reserved)) return `(?:${chars}|,)+`;
  return spec.prefix === undefined ? `${chars}+` : `${chars}{1,${spec.prefix}}`;
}

function escapeClass(chars: string): string {
  return chars.replace(/[\\\]^-]/g, "\\$&");
}

// The character that comes right after a part: a literal's first, or the operator that opens an expression.
function startOf(part: Part | undefined): string {
  if (part === undefined) return "";
  if (typeof part === "string") return part.charAt(0);
  return part.operator === "+" ? "" : part.operator;
}

interface Capture {
  spec: VarSpec;
  kind: "value" | "segments" | "query" | "params";
  separator: string;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function compile(parts: Part[]): { regex: RegExp; captures: Capture[][] } {
  let source = "^";
  const captures: Capture[][] = [];
  let query: Capture[] | undefined;
  for (const [at, part] of parts.entries()) {
    if (typeof part === "string") {
      source += escapeRegExp(part);
      continue;
    }
    const stop = startOf(parts[at + 1]);
    const { operator, vars } = part;
    if (operator === "?" || operator === "&") {
      // Query parameters may come in any order, so the whole query is captured once and read by name;
      // a {&y} after a {?x} reads from that same capture.
      const entries = vars.map((spec) => ({ spec, kind: "query" as const, separator: "&" }));
      if (operator === "&" && query) {
        query.push(...entries);
        continue;
      }
      source += operator === "?" ? "(?:\\?([^#]*))?" : "(?:&([^#]*))?";
      query = entries;
      captures.push(query);
      continue;
    }
    if (operator === ";") {
      source += "((?:;[^/?#;]*)*)";
      captures.push(vars.map((spec) => ({ spec, kind: "params" as const, separator: ";" })));
      continue;
    }
    const lead = operator === "" || operator === "+" ? "" : escapeRegExp(operator);
    const separator = operator === "/" || operator === "." ? operator : ",";
    const group: Capture[] = [];
    vars.forEach((spec, index) => {
      const prefix = index === 0 ? lead : escapeRegExp(separator);
      if (spec.explode && (operator === "/" || operator === ".")) {
        source += `((?:${escapeRegExp(operator)}[^/?#${operator === "." ? "." : ""}]+)*)`;
        group.push({ spec, kind: "segments", separator: operator });
      } else {
        source += `${prefix}(${valuePattern(part, spec, stop)})`;
        group.push({ spec, kind: "value", separator: "," });
      }
    });
    captures.push(group);
  }
  return { regex: new RegExp(`${source}$`, "s"), captures };
}

function readQuery(query: string, separator: string): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const pair of query.split(separator)) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? "" : pair.slice(eq + 1);
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return values;
}

/**
 * Compile an RFC 6570 template; throws a DefinitionError that says what to fix when it is malformed.
 * @example
 * ```ts source="examples/schema.ts#parseUriTemplate"
 * const t = parseUriTemplate("files://{+path}{?rev}");
 * t.match("files://a/b.txt?rev=3"); // { path: "a/b.txt", rev: "3" }
 * ```
 */
export function parseUriTemplate(template: string): UriTemplate {
  const parts = mergeParams(parseParts(template));
  const expressions = parts.filter((part): part is Expression => typeof part !== "string");
  const reserved = expressions.filter((expression) => expression.operator === "+" || expression.operator === "#");
  if (reserved.length > 1) {
    throw new DefinitionError(
      `URI template "${template}" has ${reserved.length} {+…}/{#…} expressions; a URI cannot be read back unambiguously with more than one, so keep one and use {var} or {/var} for the rest`,
    );
  }
  for (const [at, part] of parts.entries()) {
    const next = parts[at + 1];
    if (typeof part !== "string" && next !== undefined && typeof next !== "string" && startOf(next) === "") {
      throw new DefinitionError(
        `URI template "${template}" puts {${next.operator}${next.vars[0]?.name}} right after another expression, so a URI cannot say where one value ends; put a literal (like "/" or "-") between them`,
      );
    }
  }
  // A value that may hold what opens the next expression leaves the split between them to the matcher; two such
  // splits in a row make matching a URI that does not fit cubic in its length (seconds to minutes at 8 KB).
  let splits = 0;
  for (const [at, part] of parts.entries()) {
    const next = parts[at + 1];
    const split = typeof part !== "string" && next !== undefined && typeof next !== "string";
    splits = split && mayHold(part, startOf(next)) ? splits + 1 : 0;
    if (splits === 2) {
      const [before, middle, after] = [parts[at - 1], part, next] as [Expression, Expression, Expression];
      throw new DefinitionError(
        `URI template "${template}" puts ${shownExpression(after)} right after ${shownExpression(middle)}, itself right after ${shownExpression(before)}, and each may hold what opens the next, so a URI cannot say where one value ends; put a literal (like "/" or "-") between them`,
      );
    }
  }
  const variables = expressions.flatMap((expression) => expression.vars.map((spec) => spec.name));
  const duplicate = variables.find((name, index) => variables.indexOf(name) !== index);
  if (duplicate !== undefined) {
    throw new DefinitionError(`URI template "${template}" names the variable "${duplicate}" twice`);
  }
  const { regex, captures } = compile(parts);

  function match(uri: string): UriVariables | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined;
    const found = regex.exec(uri);
    if (!found) return undefined;
    const result: UriVariables = Object.create(null);
    let group = 1;
    for (const captureGroup of captures) {
      const first = captureGroup[0];
      if (first && (first.kind === "query" || first.kind === "params")) {
        const raw = found[group++];
        if (raw === undefined) continue;
        const body = first.kind === "params" ? raw.replace(/^;/, "") : raw;
        const values = readQuery(body, first.separator);
        for (const { spec } of captureGroup) {
          const list = values.get(spec.name);
          if (!list) continue;
          const decoded = list.map(decode);
          if (decoded.some((value) => value === undefined)) return undefined;
          result[spec.name] = spec.explode ? (decoded as string[]) : (decoded[0] as string);
        }
        continue;
      }
      for (const { spec, kind, separator } of captureGroup) {
        const raw = found[group++];
        if (raw === undefined) continue;
        if (kind === "segments") {
          const decoded = raw.split(separator).slice(1).map(decode);
          if (decoded.some((value) => value === undefined)) return undefined;
          result[spec.name] = decoded as string[];
        } else if (spec.explode) {
          const decoded = raw.split(",").map(decode);
          if (decoded.some((value) => value === undefined)) return undefined;
          result[spec.name] = decoded as string[];
        } else {
          const decoded = decode(raw);
          if (decoded === undefined) return undefined;
          result[spec.name] = decoded;
        }
      }
    }
    return result;
  }

  return { template, variables, match };
}

// {;x}{;y} expands as {;x,y} does: one run of parameters, read by name (a second group would never see its own).
function mergeParams(parts: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (typeof part !== "string" && part.operator === ";" && typeof last === "object" && last.operator === ";") {
      merged[merged.length - 1] = { operator: ";", vars: [...last.vars, ...part.vars] };
    } else merged.push(part);
  }
  return merged;
}

// Whether a value of `expression` may hold `next`, the character that opens the expression right after it.
function mayHold(expression: Expression, next: string): boolean {
  switch (expression.operator) {
    case "+":
    case "#":
      return next !== "?" && next !== "#";
    case "?":
    case "&":
      // A {&y} after a query expression continues that query: it is read from the same text, by name.
      return next !== "#" && next !== "&";
    case ";":
      return !"/?#".includes(next);
    case "/":
    case ".":
      // Exploded segments repeat; a single value stops at the character after it.
      return (
        expression.vars.some((spec) => spec.explode) && !`${expression.operator === "." ? "/" : ""}?#`.includes(next)
      );
    default:
      return false;
  }
}

function shownExpression(expression: Expression): string {
  const vars = expression.vars.map((spec) => `${spec.name}${spec.explode ? "*" : ""}`).join(",");
  return `{${expression.operator}${vars}}`;
}

/** True when `text` holds at least one `{expression}`. */
export function isUriTemplate(text: string): boolean {
  return /\{[^}]*\}/.test(text);
}
