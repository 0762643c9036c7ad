import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The parts of a tsconfig that decide which files it covers and how they compile, with `extends` applied. */
export interface Tsconfig {
  path: string;
  compilerOptions: Record<string, unknown>;
  files?: string[];
  include?: string[];
  exclude?: string[];
  references: string[];
  /** This file and every file it extends. */
  sources: string[];
}

// tsconfig files are JSONC: comments and trailing commas, outside strings.
export function parseJsonc(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 1;
    } else {
      out += char;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}

function resolveExtends(name: string, from: string): string {
  if (name.startsWith(".") || isAbsolute(name)) {
    const path = resolve(dirname(from), name);
    return existsSync(path) || path.endsWith(".json") ? path : `${path}.json`;
  }
  const require = createRequire(from);
  for (const candidate of [name, `${name}/tsconfig.json`, `${name}.json`]) {
    try {
      return require.resolve(candidate);
    } catch {}
  }
  throw new Error(`${from} extends "${name}", which cannot be found`);
}

const strings = (value: unknown, dir: string): string[] | undefined =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string").map((v) => resolve(dir, v))
    : undefined;

/** Read a tsconfig and what it extends; file lists come back as absolute paths and patterns. */
export function readTsconfig(path: string, seen: ReadonlySet<string> = new Set()): Tsconfig {
  if (seen.has(path)) throw new Error(`${path} extends itself`);
  const raw = parseJsonc(readFileSync(path, "utf8")) as Record<string, unknown>;
  const dir = dirname(path);
  const parents = (raw.extends === undefined ? [] : ([] as unknown[]).concat(raw.extends))
    .filter((name): name is string => typeof name === "string")
    .map((name) => readTsconfig(resolveExtends(name, path), new Set([...seen, path])));
  const inherited = (key: "files" | "include" | "exclude") =>
    strings(raw[key], dir) ?? parents.findLast((parent) => parent[key] !== undefined)?.[key];
  const references = Array.isArray(raw.references) ? (raw.references as { path?: unknown }[]) : [];
  const config: Tsconfig = {
    path,
    compilerOptions: Object.assign(
      {},
      ...parents.map((parent) => parent.compilerOptions),
      raw.compilerOptions as Record<string, unknown> | undefined,
    ),
    references: references
      .map((reference) => (typeof reference.path === "string" ? resolve(dir, reference.path) : ""))
      .filter(Boolean)
      .map((ref) => (ref.endsWith(".json") ? ref : join(ref, "tsconfig.json"))),
    sources: [path, ...parents.flatMap((parent) => parent.sources)],
  };
  for (const key of ["files", "include", "exclude"] as const) {
    const value = inherited(key);
    if (value !== undefined) config[key] = value;
  }
  return config;
}

// TypeScript's wildcards: ** any directories, * and ? within one segment; a last segment with neither a
// wildcard nor an extension names a directory.
function patternToRegExp(pattern: string, prefix: boolean): RegExp {
  const normalized = pattern.replaceAll("\\", "/").replace(/\/+$/, "");
  const last = normalized.slice(normalized.lastIndexOf("/") + 1);
  const isDirectory = !prefix && !/[*?]/.test(last) && !last.includes(".");
  const full = isDirectory ? `${normalized}/**/*` : normalized;
  let source = "";
  for (let i = 0; i < full.length; i++) {
    const char = full[i] as string;
    if (full.startsWith("**/", i)) {
      source += "(?:[^/]+/)*";
      i += 2;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}${prefix ? "(?:/.*)?" : ""}$`);
}

/** Whether a tsconfig's files, include and exclude take in a file, as TypeScript reads them. */
export function covers(config: Tsconfig, file: string): boolean {
  const path = file.replaceAll("\\", "/");
  if (config.files?.some((entry) => entry.replaceAll("\\", "/") === path)) return true;
  const include = config.include ?? (config.files === undefined ? [join(dirname(config.path), "**/*")] : []);
  if (!include.some((pattern) => patternToRegExp(pattern, false).test(path))) return false;
  const outDir = config.compilerOptions.outDir;
  const exclude = config.exclude ?? [
    ...["node_modules", "bower_components", "jspm_packages"].map((name) => join(dirname(config.path), name)),
    ...(typeof outDir === "string" ? [resolve(dirname(config.path), outDir)] : []),
  ];
  return !exclude.some((pattern) => patternToRegExp(pattern, true).test(path));
}
