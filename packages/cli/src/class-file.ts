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
  name: string;
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

/** The first class in `source` that extends McpServer; a file that does not parse is a CliError naming why. */
export function readServerClass(fileName: string, source: string): ServerClass | undefined {
  const { program, errors } = parseSync(fileName, source, { lang: fileName.endsWith("x") ? "tsx" : "ts" });
  if (errors.length > 0) throw new CliError(`cannot parse ${fileName}: ${errors[0]?.message}`);
  const found = findClass(program as unknown as Node);
  if (!found) return undefined;
  const id = found.id as Node | null;
  const body = found.body as Node & { body: Node[] };
  const members = new Set<string>();
  let resourceScheme: string | undefined;
  for (const member of body.body) {
    const name = memberName(member);
    if (name !== undefined) members.add(name);
    if (name === "constructor") for (const field of parameterProperties(member)) members.add(field);
    resourceScheme ??= schemeOf(member);
  }
  return { name: id && typeof id.name === "string" ? id.name : "", close: body.end - 1, members, resourceScheme };
}

function findClass(node: Node): Node | undefined {
  if ((node.type === "ClassDeclaration" || node.type === "ClassExpression") && extendsServer(node.superClass)) {
    return node;
  }
  for (const value of Object.values(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      const found = isNode(child) ? findClass(child) : undefined;
      if (found) return found;
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
