import { type Expression, type Part, readTemplate, startOf, type VarSpec } from "./uri-template-syntax.js";

// Matching a URI against a template: the template compiled once into one linear-time regular expression, and the
// variables read back out of what it captured.

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

/** URIs longer than this never match a template (a bound on matching time). */
export const MAX_URI_LENGTH = 8192;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
  const { parts, variables } = readTemplate(template);
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

/** True when `text` holds at least one `{expression}`. */
export function isUriTemplate(text: string): boolean {
  return /\{[^}]*\}/.test(text);
}
