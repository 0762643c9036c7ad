import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const SKIP = new Set(["node_modules", "dist", ".git", "test-dist", "coverage"]);

/** Every .ts file under `dir` except tests and declarations, skipping build output and dependencies. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.m?tsx?$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

export const SERVER_CLASS = /\bclass\s+([A-Za-z_$][\w$]*)\s+extends\s+McpServer\b/;

/** The files under `dir` that declare a class extending McpServer. */
export function serverClassFiles(dir: string): string[] {
  return sourceFiles(dir).filter(
    (file) => !/\.test\.m?ts$/.test(file) && SERVER_CLASS.test(readFileSync(file, "utf8")),
  );
}

/**
 * The index of the `}` that closes the block opened at `open`, skipping strings, template literals and comments.
 */
export function closingBrace(source: string, open: number): number {
  let depth = 0;
  // The depth at which each `${` we are inside opened: its `}` goes back to the template's text.
  const templates: number[] = [];
  // From inside a template literal's text: the index of its closing backtick, or of the `{` of its next `${`.
  const templateText = (from: number): number => {
    let i = from;
    for (; i < source.length && source[i] !== "`"; i++) {
      if (source[i] === "\\") i++;
      else if (source[i] === "$" && source[i + 1] === "{") {
        templates.push(depth);
        depth++;
        return i + 1;
      }
    }
    return i;
  };
  for (let i = open; i < source.length; i++) {
    const char = source[i];
    if (char === "/" && source[i + 1] === "/")
      i = source.indexOf("\n", i) < 0 ? source.length : source.indexOf("\n", i);
    else if (char === "/" && source[i + 1] === "*") i = source.indexOf("*/", i + 2) + 1 || source.length;
    else if (char === '"' || char === "'") {
      for (i++; i < source.length && source[i] !== char; i++) if (source[i] === "\\") i++;
    } else if (char === "`") i = templateText(i + 1);
    else if (char === "{") depth++;
    else if (char === "}") {
      depth--;
      if (depth === 0) return i;
      // Back inside a template literal after its ${…}: skip to its end or next ${.
      if (templates.at(-1) === depth) {
        templates.pop();
        i = templateText(i + 1);
      }
    }
  }
  return -1;
}

/** `source` with `names` imported from `module`: added to its import, or as a new import after the last one. */
export function ensureImport(source: string, module: string, names: string[]): string {
  const existing = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*["']${module.replace(/[/.]/g, "\\$&")}["'];?`);
  const match = existing.exec(source);
  if (match) {
    const have = (match[1] as string)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    const missing = names.filter((name) => !have.some((spec) => spec === name || spec.endsWith(` as ${name}`)));
    if (missing.length === 0) return source;
    const all = [...have, ...missing].sort((a, b) => a.replace(/^type /, "").localeCompare(b.replace(/^type /, "")));
    return source.replace(match[0], `import { ${all.join(", ")} } from "${module}";`);
  }
  const line = `import { ${[...names].sort().join(", ")} } from "${module}";\n`;
  const imports = [...source.matchAll(/^import[^;]*;[^\n]*\n/gm)];
  const last = imports.at(-1);
  if (!last) return line + source;
  const at = (last.index ?? 0) + last[0].length;
  return source.slice(0, at) + line + source.slice(at);
}
