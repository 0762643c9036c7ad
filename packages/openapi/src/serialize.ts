// Parameter values written as OpenAPI 3.0/3.1 say for each place and `style`: path (simple, label, matrix), query
// (form, spaceDelimited, pipeDelimited, deepObject), header (simple) and cookie (form), each with or without
// `explode`. Values are percent-encoded (RFC 3986) except in headers, where a line break is refused instead.

/** How a parameter is written (OpenAPI's `style`). */
export type Style = "simple" | "label" | "matrix" | "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";

const STYLES: Record<string, readonly Style[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** The style and explode a parameter takes, its defaults as OpenAPI gives them; a string when it names none valid. */
export function styleOf(where: string, style: unknown, explode: unknown): { style: Style; explode: boolean } | string {
  const allowed = STYLES[where] ?? ["simple"];
  const chosen = style === undefined ? (allowed[0] as Style) : (style as Style);
  if (!allowed.includes(chosen)) return `style ${JSON.stringify(style)} is not one a ${where} parameter takes`;
  return { style: chosen, explode: typeof explode === "boolean" ? explode : chosen === "form" };
}

/** How deep a deepObject value may nest (`a[b][c]…`). */
const MAX_DEPTH = 8;

function scalar(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

const encode = (value: unknown) => encodeURIComponent(scalar(value));

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// An object's defined entries (undefined and null left out, as an absent property).
function entries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).filter(([, item]) => item !== undefined && item !== null);
}

/** A path parameter's text, to put in place of `{name}`. */
export function pathValue(name: string, style: Style, explode: boolean, value: unknown): string {
  const prefix = style === "label" ? "." : style === "matrix" ? ";" : "";
  const between = explode ? prefix || "," : ",";
  if (Array.isArray(value)) {
    if (style === "matrix") {
      const items = value.map(encode);
      return explode ? items.map((item) => `;${name}=${item}`).join("") : `;${name}=${items.join(",")}`;
    }
    return prefix + value.map(encode).join(between);
  }
  if (isObject(value)) {
    const pairs = entries(value);
    if (explode) return prefix + pairs.map(([key, item]) => `${encode(key)}=${encode(item)}`).join(between);
    const flat = pairs.flatMap(([key, item]) => [encode(key), encode(item)]).join(",");
    return style === "matrix" ? `;${name}=${flat}` : prefix + flat;
  }
  return style === "matrix" ? `;${name}=${encode(value)}` : prefix + encode(value);
}

/** A query parameter's `name=value` pairs, encoded; a string when its value cannot be written in its style. */
export function queryPairs(name: string, style: Style, explode: boolean, value: unknown): string[] | { error: string } {
  const key = encodeURIComponent(name);
  if (style === "deepObject") {
    if (!isObject(value)) return { error: `query parameter "${name}" (deepObject) takes an object` };
    const pairs: string[] = [];
    const deep = deepPairs(key, value, 1, pairs);
    return deep === undefined ? pairs : { error: `query parameter "${name}" ${deep}` };
  }
  if (Array.isArray(value)) {
    if (explode && style === "form") return value.map((item) => `${key}=${encode(item)}`);
    const glue = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
    return [`${key}=${value.map(encode).join(glue)}`];
  }
  if (isObject(value)) {
    const pairs = entries(value);
    if (explode) return pairs.map(([item, inner]) => `${encode(item)}=${encode(inner)}`);
    const glue = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
    return [`${key}=${pairs.flatMap(([item, inner]) => [encode(item), encode(inner)]).join(glue)}`];
  }
  return [`${key}=${encode(value)}`];
}

// `a[b]=1`, nested as `a[b][c]=1` and arrays as a repeated key, to MAX_DEPTH levels; a reason past it.
function deepPairs(key: string, value: Record<string, unknown>, depth: number, out: string[]): string | undefined {
  if (depth > MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`;
  for (const [name, item] of entries(value)) {
    const inner = `${key}%5B${encodeURIComponent(name)}%5D`;
    if (isObject(item)) {
      const deep = deepPairs(inner, item, depth + 1, out);
      if (deep !== undefined) return deep;
    } else if (Array.isArray(item)) for (const each of item) out.push(`${inner}=${encode(each)}`);
    else out.push(`${inner}=${encode(item)}`);
  }
  return undefined;
}

/** A header parameter's value (simple style), unencoded; undefined when it holds a line break or NUL. */
export function headerValue(explode: boolean, value: unknown): string | undefined {
  let text: string;
  if (Array.isArray(value)) text = value.map(scalar).join(",");
  else if (isObject(value)) {
    const pairs = entries(value);
    text = explode
      ? pairs.map(([key, item]) => `${key}=${scalar(item)}`).join(",")
      : pairs.flatMap(([key, item]) => [key, scalar(item)]).join(",");
  } else text = scalar(value);
  return /[\r\n\0]/.test(text) ? undefined : text;
}

/** A cookie parameter's `name=value` pairs (form style), values percent-encoded. */
export function cookiePairs(name: string, explode: boolean, value: unknown): string[] {
  if (Array.isArray(value)) {
    return explode ? value.map((item) => `${name}=${encode(item)}`) : [`${name}=${value.map(encode).join(",")}`];
  }
  if (isObject(value)) {
    const pairs = entries(value);
    if (explode) return pairs.map(([key, item]) => `${encode(key)}=${encode(item)}`);
    return [`${name}=${pairs.flatMap(([key, item]) => [encode(key), encode(item)]).join(",")}`];
  }
  return [`${name}=${encode(value)}`];
}
