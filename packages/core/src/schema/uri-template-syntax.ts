import { DefinitionError } from "../wire/errors.js";

// RFC 6570 template syntax: a template read into literals and expressions, and refused at registration when a URI
// could not be read back by it unambiguously, or only in more than linear time.

/** One variable of an expression: its name and modifier (`*` explode, `:n` prefix). */
export interface VarSpec {
  name: string;
  explode: boolean;
  prefix: number | undefined;
}

/** One `{…}` of a template: its operator ("" for none) and variables. */
export interface Expression {
  operator: string;
  vars: VarSpec[];
}

/** A template's parts in order: literal text, or an expression. */
export type Part = string | Expression;

const OPERATORS = new Set(["", "+", "#", ".", "/", ";", "?", "&"]);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

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

/** The character that comes right after a part: a literal's first, or the operator that opens an expression. */
export function startOf(part: Part | undefined): string {
  if (part === undefined) return "";
  if (typeof part === "string") return part.charAt(0);
  return part.operator === "+" ? "" : part.operator;
}

/**
 * `template` read into its parts and variables; a DefinitionError that says what to fix when it is malformed, or
 * when a URI could not say where one value ends and the next begins.
 */
export function readTemplate(template: string): { parts: Part[]; variables: string[] } {
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
  return { parts, variables };
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
