// What a TypeScript file imports, read from its syntax tree (not a regex, which quotes, templates and comments fool):
// static imports and re-exports (type-only ones too), import() with a literal path, import("...") types,
// `import x = require(...)`, require(...) and /// <reference path> comments.
import { parseSync } from "vite";

/**
 * Each module the file names, in source order: `{ spec }` for a path it can read, `{ spec: undefined, text }` for
 * an import() or require() whose path is computed (no check can follow it).
 */
export function importsOf(fileName, source) {
  const { program, comments, errors } = parseSync(fileName, source, { lang: "ts", sourceType: "module" });
  if (errors.length > 0) throw new Error(`${fileName}: cannot parse: ${errors[0].message}`);
  const found = [];
  const named = (node) => {
    const spec = literal(node);
    found.push(spec === undefined ? { spec, text: source.slice(node.start, node.end) } : { spec });
  };
  (function walk(node) {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== "object") return;
    switch (node.type) {
      case "ImportDeclaration":
      case "ExportAllDeclaration":
      case "ExportNamedDeclaration":
        if (node.source) named(node.source);
        break;
      case "ImportExpression":
      case "TSImportType":
        named(node.source ?? node.argument);
        break;
      case "TSExternalModuleReference":
        named(node.expression);
        break;
      case "CallExpression":
        if (node.callee.type === "Identifier" && node.callee.name === "require" && node.arguments.length > 0)
          named(node.arguments[0]);
        break;
    }
    for (const [key, value] of Object.entries(node)) if (key !== "type" && typeof value === "object") walk(value);
  })(program);
  for (const comment of comments) {
    const reference = /^\/\s*<reference\s+path\s*=\s*["']([^"']+)["']/.exec(comment.value);
    if (reference) found.push({ spec: reference[1] });
  }
  return found;
}

/** A string literal's or a substitution-free template's text; undefined for anything computed. */
function literal(node) {
  if (node?.type === "Literal" && typeof node.value === "string") return node.value;
  if (node?.type === "TSLiteralType") return literal(node.literal);
  if (node?.type === "TemplateLiteral" && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return undefined;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a path or node:*. */
export function packageOf(spec) {
  if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("node:")) return undefined;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * Every name a module exports, values and types alike, read from its syntax: `export { a as b } from`, local
 * `export const` / `interface` / `type`, `default`; an `export *` (whose names its text does not show) as `* from "x"`.
 */
export function exportedNames(fileName, source) {
  const { module, errors } = parseSync(fileName, source, { lang: "ts", sourceType: "module" });
  if (errors.length > 0) throw new Error(`${fileName}: cannot parse: ${errors[0].message}`);
  return module.staticExports
    .flatMap(({ entries }) => entries)
    .map(({ exportName, moduleRequest }) =>
      exportName.kind === "Default" ? "default" : (exportName.name ?? `* from "${moduleRequest.value}"`),
    )
    .sort();
}
