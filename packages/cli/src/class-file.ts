import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSync } from "oxc-parser";
import { CliError } from "./exit-codes.js";

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

// A cheap first look; the syntax tree decides.
const MENTIONS_SERVER = /\bextends\s+(?:[\w$]+\.)?McpServer\b/;

/** The files under `dir` that declare a class extending McpServer (one that does not parse is kept, to be reported). */
export function serverClassFiles(dir: string): string[] {
  return sourceFiles(dir).filter((file) => {
    if (/\.test\.m?ts$/.test(file)) return false;
    const source = readFileSync(file, "utf8");
    if (!MENTIONS_SERVER.test(source)) return false;
    try {
      return readServerClass(file, source) !== undefined;
    } catch {
      return true;
    }
  });
}

/** A class that extends McpServer, read from the file's syntax tree. */
export interface ServerClass {
  /** Its name in the file: the class's, or the variable's it is assigned to; "" for an anonymous default export. */
  name: string;
  /** How another module imports it: by this name, or as the default export; undefined when the file exports it not. */
  exported: { name: string; default: boolean } | undefined;
  /** The index of the `}` that closes the class body. */
  close: number;
  /** The names of its members, static ones included: methods, accessors, fields, overloads, parameter properties. */
  members: Set<string>;
  /** The scheme of the first `@resource("scheme://…")` in the class, if any. */
  resourceScheme: string | undefined;
}

// The parts of oxc's ESTree shape read here.
interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as Node).type === "string";

/**
 * The first class in `source` that is not abstract and extends McpServer, directly or through a class of the same
 * file; a file that does not parse, or whose only such classes are abstract, is a CliError naming why.
 */
export function readServerClass(fileName: string, source: string): ServerClass | undefined {
  const { program, errors } = parseSync(fileName, source, { lang: fileName.endsWith("x") ? "tsx" : "ts" });
  const [error] = errors;
  if (error) {
    const at = error.labels[0]?.start;
    const where = at === undefined ? "" : `:${lineColumn(source, at)}`;
    throw new CliError(`cannot parse ${fileName}${where}: ${error.message}`);
  }
  const servers = new Set<string>();
  let abstract: string | undefined;
  for (const { node, name, parents } of classes(program as unknown as Node, [])) {
    const superClass = node.superClass;
    const base = isNode(superClass) && superClass.type === "Identifier" ? (superClass.name as string) : undefined;
    if (!extendsServer(superClass) && !(base !== undefined && servers.has(base))) continue;
    if (name) servers.add(name);
    if (node.abstract === true) {
      abstract ??= name;
      continue;
    }
    return describe(node, name, exportOf(program as unknown as Node, name, parents));
  }
  if (abstract !== undefined) {
    throw new CliError(
      `class ${abstract} in ${fileName} is abstract, so a test cannot make one: say the file of a class that extends it with --file`,
    );
  }
  return undefined;
}

function lineColumn(source: string, at: number): string {
  const before = source.slice(0, at).split("\n");
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function describe(node: Node, name: string, exported: ServerClass["exported"]): ServerClass {
  const body = node.body as Node & { body: Node[] };
  const members = new Set<string>();
  let resourceScheme: string | undefined;
  for (const member of body.body) {
    const key = memberName(member);
    if (key !== undefined) members.add(key);
    if (key === "constructor") for (const field of parameterProperties(member)) members.add(field);
    resourceScheme ??= schemeOf(member);
  }
  return { name, exported, close: body.end - 1, members, resourceScheme };
}

interface Found {
  node: Node;
  /** The class's name, else the variable's it initialises (`const Server = class extends McpServer {}`). */
  name: string;
  parents: Node[];
}

function* classes(node: Node, parents: Node[]): Generator<Found> {
  if (node.type === "ClassDeclaration" || node.type === "ClassExpression") {
    const parent = parents.at(-1);
    const id = isNode(node.id) ? node.id : parent?.type === "VariableDeclarator" ? parent.id : undefined;
    yield { node, name: isNode(id) && typeof id.name === "string" ? id.name : "", parents };
  }
  for (const value of Object.values(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      if (isNode(child)) yield* classes(child, [...parents, node]);
    }
  }
}

// `export class A`, `export const A = class`, `export default class`, `export { A as B }`, `export default A`.
function exportOf(program: Node, name: string, parents: Node[]): ServerClass["exported"] {
  const parent = parents.at(-1);
  if (parent?.type === "ExportNamedDeclaration") return { name, default: false };
  if (parent?.type === "ExportDefaultDeclaration") return { name: name || "Server", default: true };
  const variable = parent?.type === "VariableDeclarator";
  if (variable && parents.at(-3)?.type === "ExportNamedDeclaration") return { name, default: false };
  // Otherwise only a top-level class or variable can be exported, by a statement of its own.
  if (!name || parents.length !== (variable ? 3 : 1)) return undefined;
  for (const statement of program.body as Node[]) {
    const declared = statement.declaration;
    if (statement.type === "ExportDefaultDeclaration" && isNode(declared) && declared.name === name) {
      return { name, default: true };
    }
    if (statement.type !== "ExportNamedDeclaration" || statement.source) continue;
    for (const specifier of (statement.specifiers as Node[] | undefined) ?? []) {
      if (!isNode(specifier.local) || specifier.local.name !== name || !isNode(specifier.exported)) continue;
      const as = String(specifier.exported.name ?? specifier.exported.value);
      return as === "default" ? { name, default: true } : { name: as, default: false };
    }
  }
  return undefined;
}

function extendsServer(superClass: unknown): boolean {
  if (!isNode(superClass)) return false;
  if (superClass.type === "Identifier") return superClass.name === "McpServer";
  return (
    superClass.type === "MemberExpression" && isNode(superClass.property) && superClass.property.name === "McpServer"
  );
}

// `labels`, `"labels"` and `static labels` name the member `labels`; `#labels` and computed keys do not.
function memberName(member: Node): string | undefined {
  const key = member.key;
  if (member.computed === true || !isNode(key)) return undefined;
  if (key.type === "Identifier") return key.name as string;
  if (key.type === "Literal" && (typeof key.value === "string" || typeof key.value === "number")) {
    return String(key.value);
  }
  return undefined;
}

// `constructor(private labels: …)` declares a field `labels`.
function parameterProperties(ctor: Node): string[] {
  const params = isNode(ctor.value) ? (ctor.value.params as Node[]) : [];
  return params.flatMap((param) => {
    if (param.type !== "TSParameterProperty" || !isNode(param.parameter)) return [];
    const target = param.parameter.type === "AssignmentPattern" ? param.parameter.left : param.parameter;
    return isNode(target) && target.type === "Identifier" ? [target.name as string] : [];
  });
}

function schemeOf(member: Node): string | undefined {
  for (const decorator of (member.decorators as Node[] | undefined) ?? []) {
    const call = decorator.expression;
    if (!isNode(call) || call.type !== "CallExpression" || !isNode(call.callee)) continue;
    if (call.callee.name !== "resource") continue;
    const [uri] = call.arguments as Node[];
    const scheme = typeof uri?.value === "string" ? /^([a-z][a-z0-9+.-]*):\/\//.exec(uri.value)?.[1] : undefined;
    if (scheme) return scheme;
  }
  return undefined;
}

/** `source` with `names` imported from `module`: added to its import, or as a new import after the last one. */
export function ensureImport(source: string, module: string, names: string[]): string {
  const from = `\\s*from\\s*["']${module.replace(/[/.]/g, "\\$&")}["'];?`;
  const existing = new RegExp(`import\\s*\\{([^}]*)\\}${from}`);
  // A name in `import type { Args }` is there already for `type Args`; adding it again would declare it twice.
  const typeOnly = [...source.matchAll(new RegExp(`import\\s+type\\s*\\{([^}]*)\\}${from}`, "g"))].flatMap((m) =>
    (m[1] as string).split(",").map((name) => `type ${name.trim()}`),
  );
  const match = existing.exec(source);
  const wanted = names.filter((name) => !typeOnly.includes(name));
  if (wanted.length === 0) return source;
  if (match) {
    const have = (match[1] as string)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    const missing = wanted.filter((name) => !have.some((spec) => spec === name || spec.endsWith(` as ${name}`)));
    if (missing.length === 0) return source;
    const all = [...have, ...missing].sort((a, b) => a.replace(/^type /, "").localeCompare(b.replace(/^type /, "")));
    return source.replace(match[0], `import { ${all.join(", ")} } from "${module}";`);
  }
  const line = `import { ${[...wanted].sort().join(", ")} } from "${module}";\n`;
  const imports = [...source.matchAll(/^import[^;]*;[^\n]*\n/gm)];
  const last = imports.at(-1);
  if (!last) return line + source;
  const at = (last.index ?? 0) + last[0].length;
  return source.slice(0, at) + line + source.slice(at);
}
