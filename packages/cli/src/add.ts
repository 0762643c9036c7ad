import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ensureImport, readServerClass, type ServerClass, serverClassFiles, sourceFiles } from "./class-file.js";
import { CliError, usage } from "./exit-codes.js";

export const KINDS = ["tool", "resource", "prompt"] as const;
export type Kind = (typeof KINDS)[number];

export interface AddOptions {
  /** The server class file; found by scanning `src` for `extends McpServer` when absent. */
  file?: string;
  /** The project folder (default: the working directory). */
  dir: string;
}

export interface Added {
  classFile: string;
  testFile: string;
  className: string;
}

// At least one letter or digit: the method is named after them.
const NAME = /^(?=[^A-Za-z0-9]*[A-Za-z0-9])[A-Za-z0-9_.-]{1,64}$/;

// McpServer's own members (and the constructor): a stub method of one of these names would replace them.
const RESERVED = new Set(["constructor", "name", "version", "title", "description", "instructions", "toServer"]);

// biome's line width in a generated project.
const WIDTH = 120;

// A name that is already a method name is kept as it is (`reopen_issue`); any other becomes camelCase (`ask-me`).
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function camel(name: string): string {
  const words = name.split(/[-_.]+/).filter(Boolean);
  const joined = words.map((word, i) => (i === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join("");
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/[_.\s]+/g, "-")
    .toLowerCase();
}

// The stub and its test are written as the project's formatter (biome, 120 columns) leaves them: objects open
// on their own line stay open, and long names sit alone in a string, so `npm run lint` passes as generated.
interface Stub {
  code: string;
  imports: string[];
  /** A schema constant for the arguments, declared once and typed into the method with `Args<typeof …>`. */
  schema?: string;
}

// The method's first line, or the three biome wraps it into when it is wider than the project's lines.
function signature(method: string, field: string, schemaName: string): string[] {
  const line = `  ${method}({ ${field} }: Args<typeof ${schemaName}>) {`;
  return line.length <= WIDTH ? [line] : [`  ${method}({`, `    ${field},`, `  }: Args<typeof ${schemaName}>) {`];
}

function pascal(method: string): string {
  const bare = method.replace(/^_/, "");
  return /^[0-9]/.test(bare) ? `Args${bare}` : (bare[0]?.toUpperCase() ?? "") + bare.slice(1);
}

// Tool and prompt stubs are one shape (one string argument in a schema constant); only these words differ.
const WITH_ARGUMENTS = {
  tool: {
    option: "input",
    field: "text",
    fieldIs: "what the model passes",
    does: (name: string) => `what ${name} does, for the model`,
    returns: (name: string) => `\`${name}: \${text}\``,
  },
  prompt: {
    option: "args",
    field: "topic",
    fieldIs: "what the user fills in",
    does: (name: string) => `what ${name} asks for`,
    returns: (name: string) => `\`TODO: ${name} about \${topic}\``,
  },
} as const;

function stub(kind: Kind, name: string, method: string, uri: string, schemaName: string): Stub {
  if (kind === "resource") {
    return {
      imports: ["resource"],
      code: [
        `  @resource(${JSON.stringify(uri)}, {`,
        `    description: ${JSON.stringify(`TODO: what ${name} holds`)},`,
        '    mimeType: "text/plain",',
        "  })",
        `  ${method}() {`,
        `    return "TODO: the contents of ${name}";`,
        "  }",
      ].join("\n"),
    };
  }
  const { option, field, fieldIs, does, returns } = WITH_ARGUMENTS[kind];
  return {
    imports: ["type Args", kind],
    schema: [
      `const ${schemaName} = {`,
      `  ${field}: z.string().describe(${JSON.stringify(`TODO: ${fieldIs}`)}),`,
      "};",
    ].join("\n"),
    code: [
      `  @${kind}({`,
      ...(method === name ? [] : [`    name: ${JSON.stringify(name)},`]),
      `    description: ${JSON.stringify(`TODO: ${does(name)}`)},`,
      `    ${option}: ${schemaName},`,
      "  })",
      ...signature(method, field, schemaName),
      `    return ${returns(name)};`,
      "  }",
    ].join("\n"),
  };
}

function testOf(kind: Kind, name: string, imported: Imported, specifier: string, uri: string): string {
  const className = imported.name;
  // The name and URI sit alone in constants: no other line grows with them, so biome leaves the file as it is.
  const body =
    kind === "tool"
      ? [
          '    const result = await client.callTool(name, { text: "hello" });',
          "    expect(result.isError).toBeFalsy();",
          `    expect(result.content).toEqual([{ type: "text", text: \`\${name}: hello\` }]);`,
        ]
      : kind === "resource"
        ? [
            "    const { contents } = await client.readResource(uri);",
            `    expect(contents[0]).toMatchObject({ uri, text: \`TODO: the contents of \${name}\` });`,
          ]
        : [
            '    const { messages } = await client.getPrompt(name, { topic: "tests" });',
            `    expect(messages[0]?.content).toEqual({ type: "text", text: \`TODO: \${name} about tests\` });`,
          ];
  return [
    'import { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "@toolsmith/core";',
    'import { createTestClient } from "@toolsmith/core/testing";',
    'import { describe, expect, it } from "vitest";',
    imported.default
      ? `import ${className} from ${JSON.stringify(specifier)};`
      : `import { ${className} } from ${JSON.stringify(specifier)};`,
    "",
    "const ERAS = [LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION];",
    `const name = ${JSON.stringify(name)};`,
    ...(kind === "resource" ? [`const uri = ${JSON.stringify(uri)};`] : []),
    "",
    `describe.each(ERAS)(\`${kind} \${name} (%s)\`, (protocolVersion) => {`,
    '  it("answers", async () => {',
    `    const client = await createTestClient(new ${className}(), { protocolVersion });`,
    ...body,
    "  });",
    "});",
    "",
  ].join("\n");
}

/** How a test imports the server class. */
type Imported = NonNullable<ServerClass["exported"]>;

/** `source` with `declaration` after its last import (or at the top), a blank line either side. */
function declareAfterImports(source: string, declaration: string): string {
  const last = [...source.matchAll(/^import[^;]*;[^\n]*\n/gm)].at(-1);
  const at = last ? (last.index ?? 0) + last[0].length : 0;
  const rest = source.slice(at).replace(/^\n*/, "");
  return at === 0 ? `${declaration}\n\n${rest}` : `${source.slice(0, at)}\n${declaration}\n\n${rest}`;
}

/** Where the new test goes and how it imports the class: beside a test that already imports it, else beside the class. */
function testPlace(dir: string, classFile: string, imported: Imported): { testDir: string; specifier: string } {
  const importOf = imported.default
    ? /import\s+[A-Za-z_$][\w$]*\s*(?:,\s*\{[^}]*\}\s*)?from\s*["']([^"']+)["']/
    : new RegExp(`import\\s*\\{[^}]*\\b${imported.name}\\b[^}]*\\}\\s*from\\s*["']([^"']+)["']`);
  const tests = sourceFiles(dir).filter((file) => /\.test\.m?ts$/.test(file));
  for (const test of tests) {
    const specifier = importOf.exec(readFileSync(test, "utf8"))?.[1];
    // A default import counts only when it is of the class's own file.
    const ofClass = (found: string) => resolve(dirname(test), found).replace(/\.(m?)js$/, ".$1ts") === classFile;
    if (specifier && (!imported.default || ofClass(specifier))) return { testDir: dirname(test), specifier };
  }
  let specifier = relative(dirname(classFile), classFile).replace(/\.m?tsx?$/, ".js");
  if (!specifier.startsWith(".")) specifier = `./${specifier}`;
  return { testDir: dirname(classFile), specifier };
}

/** Add a decorated method stub to the server class and a test for it beside the project's tests. */
export function addStub(kind: Kind, name: string, options: AddOptions): Added {
  if (!NAME.test(name))
    throw usage(`a ${kind} name is 1–64 of A-Z a-z 0-9 _ . -, with a letter or digit; got "${name}"`);
  const dir = resolve(options.dir);
  let classFile: string;
  if (options.file !== undefined) {
    classFile = resolve(dir, options.file);
    if (!existsSync(classFile)) throw usage(`there is no file ${options.file}`);
  } else {
    const src = existsSync(join(dir, "src")) ? join(dir, "src") : dir;
    const found = serverClassFiles(src);
    if (found.length === 0) {
      throw new CliError(
        `no class extends McpServer under ${relative(process.cwd(), src) || "."}; say which file with --file`,
      );
    }
    if (found.length > 1) {
      throw usage(
        `more than one server class (${found.map((f) => relative(dir, f)).join(", ")}); say which with --file`,
      );
    }
    classFile = found[0] as string;
  }
  const source = readFileSync(classFile, "utf8");
  const found = readServerClass(relative(dir, classFile), source);
  if (!found) throw new CliError(`${relative(dir, classFile)} declares no class that extends McpServer`);
  const { close, members, exported } = found;
  const className = found.name || "the default export";
  if (!exported) {
    throw new CliError(
      `class ${className} is not exported from ${relative(dir, classFile)}: export it, so that its test can import it`,
    );
  }
  // A name McpServer keeps for itself gets a method of another name, published under the name asked for.
  const base = IDENTIFIER.test(name) ? name : camel(name);
  const method = RESERVED.has(base) ? `${base}${kind[0]?.toUpperCase()}${kind.slice(1)}` : base;
  if (members.has(method)) throw new CliError(`class ${className} already has a member ${method}`);
  const uri = `${found.resourceScheme ?? kebab(className)}://${kebab(name)}`;
  // The schema constant is PascalCase whatever the method's case: `reopen_issue` takes `ReopenIssue`.
  let schemaName = pascal(camel(method));
  const taken = (candidate: string) => new RegExp(`\\b${candidate.replace(/\$/g, "\\$")}\\b`).test(source);
  if (taken(schemaName)) schemaName += kind === "tool" ? "Input" : "Args";
  for (let n = 2; taken(schemaName); n++) schemaName = `${schemaName.replace(/\d+$/, "")}${n}`;
  const { code, imports, schema } = stub(kind, name, method, uri, schemaName);
  const before = source.slice(0, close).replace(/\s*$/, "");
  // The first member of an empty class follows its `{` with no blank line, as biome formats it.
  let next = `${before}${before.endsWith("{") ? "\n" : "\n\n"}${code}\n${source.slice(close)}`;
  next = ensureImport(next, "@toolsmith/decorators", imports);
  if (kind !== "resource") next = ensureImport(next, "zod", ["z"]);
  if (schema) next = declareAfterImports(next, schema);

  const { testDir, specifier } = testPlace(dir, classFile, exported);
  const testFile = join(testDir, `${kebab(name)}.test.ts`);
  if (existsSync(testFile)) throw new CliError(`${relative(dir, testFile)} exists already; not overwriting it`);
  writeFileSync(classFile, next);
  writeFileSync(testFile, testOf(kind, name, exported, specifier, uri));
  return { classFile, testFile, className };
}
