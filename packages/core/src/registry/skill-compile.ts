import { DefinitionError, shown } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Resource } from "../wire/types.js";
import type { Guard } from "./guards.js";
import { skillDigest } from "./skill-digest.js";
import { FrontmatterError, parseFrontmatter } from "./skill-frontmatter.js";

// A skill (the skills extension, SEP-2640) checked and compiled once, at registration: its entry as skills/list and
// skills/get send it, each file's bytes, digest and size, and its directories' children.

/**
 * A skill: a folder of files, `SKILL.md` among them, served under `skill://<path>/` (the skills extension,
 * `io.modelcontextprotocol/skills`). Read a folder with `@toolsmith/skills`, or give the files here.
 * @example
 * ```ts source="examples/registry.ts#SkillDefinition"
 * server.skill({
 *   path: "git-workflow",
 *   files: {
 *     "SKILL.md":
 *       "---\nname: git-workflow\ndescription: Follow this team's Git conventions\n---\n\nBranch from main.\n",
 *     "references/commits.md": "Write the why in the body.\n",
 *   },
 * });
 * ```
 */
export interface SkillDefinition {
  /**
   * Where it is served: one or more `/`-separated segments, the last its `name` (`git-workflow`,
   * `acme/billing/refunds`); the files are `skill://<path>/<file>`.
   */
  path: string;
  /** Its files by their path in the skill's folder (`SKILL.md`, `references/FORMS.md`): text, or bytes. */
  files: Readonly<Record<string, string | Uint8Array>>;
  /** Who may see it: a caller it refuses gets the answers of a skill that does not exist. */
  guard?: Guard;
  /** What errors name it by (the folder it was read from); its path by default. */
  source?: string;
}

/** One file of a compiled skill. */
export interface SkillFile {
  readonly uri: string;
  /** Its path in the skill's folder. */
  readonly path: string;
  readonly mimeType: string;
  /** Text when its bytes are UTF-8 (sent as `text`), else the bytes (sent as a base64 `blob`). */
  readonly content: string | Uint8Array;
  readonly size: number;
  readonly digest: string;
}

/** A skill's entry, as `skills/list` and `skills/get` send it. */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly resources: readonly { readonly uri: string; readonly digest: string; readonly size: number }[];
}

export interface CompiledSkill {
  readonly definition: SkillDefinition;
  readonly path: string;
  readonly name: string;
  /** The URI of its `SKILL.md`: what names the skill. */
  readonly uri: string;
  /** Its root directory: `skill://<path>`. */
  readonly root: string;
  readonly entry: SkillEntry;
  readonly files: readonly SkillFile[];
  /** The children of each of its directories (the root's included), by directory URI. */
  readonly directories: ReadonlyMap<string, readonly Resource[]>;
}

/** The extension's per-skill limits: servers should serve no skill beyond them, so none is registered. */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

export const DIRECTORY_MIME_TYPE = "inode/directory";
export const SKILL_FILE = "SKILL.md";

/** The Agent Skills rule for a name: 1 to 64 lowercase letters, digits and single inner hyphens. */
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// A segment of a path: characters a URI path keeps as they are, no leading dot (no `.`, `..` or hidden file).
const SEGMENT = /^[A-Za-z0-9_~+-][A-Za-z0-9._~+-]*$/;

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv",
  html: "text/html",
  xml: "application/xml",
  py: "text/x-python",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  sh: "text/x-shellscript",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
};

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

function mimeTypeOf(path: string, text: boolean): string {
  const dot = path.lastIndexOf(".");
  const found = dot > path.lastIndexOf("/") ? MIME_TYPES[path.slice(dot + 1).toLowerCase()] : undefined;
  return found ?? (text ? "text/plain" : "application/octet-stream");
}

// Characters, as the Agent Skills limits count them (code points).
const lengthOf = (text: string) => [...text].length;

function checkFrontmatter(frontmatter: Record<string, unknown>, name: string, fail: (why: string) => never): void {
  const { name: given, description, compatibility, metadata } = frontmatter;
  if (typeof given !== "string" || given === "") fail("the frontmatter needs a name");
  if (given.length > 64 || !NAME.test(given)) {
    fail(`name ${shown(given)} breaks the Agent Skills rule: 1 to 64 lowercase letters, digits and single hyphens`);
  }
  if (given !== name) fail(`name "${given}" must equal the last segment of the skill's path, "${name}"`);
  if (typeof description !== "string" || description === "" || lengthOf(description) > 1024) {
    fail("the frontmatter needs a description of 1 to 1024 characters");
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== "string" || compatibility === "" || lengthOf(compatibility) > 500)
  ) {
    fail("compatibility must be text of 1 to 500 characters");
  }
  if (metadata !== undefined) {
    if (!isPlainObject(metadata) || Object.values(metadata).some((value) => typeof value !== "string")) {
      fail("metadata must map names to text (quote numbers and dates)");
    }
    const reserved = Object.keys(metadata).find((key) => key.startsWith("io.modelcontextprotocol/"));
    if (reserved !== undefined)
      fail(`metadata "${reserved}": keys under io.modelcontextprotocol/ are reserved for MCP extensions`);
  }
}

/** A skill definition checked and compiled; a DefinitionError names the skill, the file and what to change. */
export function compileSkill(definition: SkillDefinition): CompiledSkill {
  if (!isPlainObject(definition))
    throw new DefinitionError(`A skill must be { path, files }, not ${shown(definition)}`);
  const { path, files, guard, source } = definition;
  const label = typeof source === "string" ? source : typeof path === "string" ? path : shown(path);
  const fail = (why: string, file?: string): never => {
    throw new DefinitionError(`Skill "${label}"${file === undefined ? "" : `, ${file}`}: ${why}`);
  };
  if (typeof path !== "string" || path === "") fail('needs a path, like "git-workflow" or "acme/billing/refunds"');
  const segments = path.split("/");
  const bad = segments.find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined)
    fail(
      `path segment ${shown(bad)} is not allowed: use letters, digits, ".", "_", "~", "+" and "-", not starting with "."`,
    );
  const name = segments[segments.length - 1] as string;
  if (name.length > 64 || !NAME.test(name)) {
    fail(`the last segment of its path, "${name}", is its name: 1 to 64 lowercase letters, digits and single hyphens`);
  }
  if (guard !== undefined && typeof guard !== "function") fail("guard must be a function of the request context");
  if (!isPlainObject(files)) fail('files must be an object of contents by path, like { "SKILL.md": "---\\nname: …" }');
  const root = `skill://${path}`;
  const paths = Object.keys(files).sort();
  if (!paths.includes(SKILL_FILE)) fail(`has no ${SKILL_FILE} at its root`);
  if (paths.length > SKILL_LIMITS.files)
    fail(`has ${paths.length} files; the skills extension allows ${SKILL_LIMITS.files} per skill`);
  const compiled: SkillFile[] = [];
  let total = 0;
  for (const file of paths) {
    const parts = file.split("/");
    const wrong = parts.find((part) => !SEGMENT.test(part));
    if (wrong !== undefined) {
      fail(
        `the path segment ${shown(wrong)} is not allowed: no "..", absolute paths, hidden files or characters to encode`,
        shown(file),
      );
    }
    const given = files[file];
    let bytes: Uint8Array;
    let content: string | Uint8Array;
    if (typeof given === "string") {
      bytes = encoder.encode(given);
      content = given;
    } else if (given instanceof Uint8Array) {
      bytes = given.slice();
      let text: string | undefined;
      try {
        text = decoder.decode(bytes);
      } catch {}
      content = text ?? bytes;
    } else return fail("must be text or bytes (a Uint8Array)", file);
    total += bytes.length;
    if (total > SKILL_LIMITS.bytes)
      fail(`its files pass ${SKILL_LIMITS.bytes} bytes, the skills extension's limit per skill`, file);
    const uri = `${root}/${file}`;
    const mimeType = file === SKILL_FILE ? "text/markdown" : mimeTypeOf(file, typeof content === "string");
    compiled.push({ uri, path: file, mimeType, content, size: bytes.length, digest: skillDigest(bytes) });
  }
  const manifest = compiled.find((file) => file.path === SKILL_FILE) as SkillFile;
  const markdown = manifest.content;
  if (typeof markdown !== "string") return fail("is not UTF-8 text", SKILL_FILE);
  let frontmatter: Record<string, unknown>;
  try {
    frontmatter = parseFrontmatter(markdown);
  } catch (error) {
    if (!(error instanceof FrontmatterError)) throw error;
    return fail(error.message, SKILL_FILE);
  }
  checkFrontmatter(frontmatter, name, (why) => fail(why, SKILL_FILE));
  compiled.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  const entry: SkillEntry = deepFreeze({
    uri: manifest.uri,
    frontmatter,
    resources: compiled.map(({ uri, digest, size }) => ({ uri, digest, size })),
  });
  return {
    definition,
    path,
    name,
    uri: manifest.uri,
    root,
    entry,
    files: compiled,
    directories: directoriesOf(root, compiled),
  };
}

// Each directory's direct children: files with their metadata, subdirectories as directory resources; by URI.
function directoriesOf(root: string, files: readonly SkillFile[]): Map<string, Resource[]> {
  const children = new Map<string, Map<string, Resource>>([[root, new Map()]]);
  for (const file of files) {
    const parts = file.path.split("/");
    let directory = root;
    for (const [index, part] of parts.entries()) {
      const uri = `${directory}/${part}`;
      const own = children.get(directory) as Map<string, Resource>;
      if (index === parts.length - 1) own.set(uri, { uri, name: part, mimeType: file.mimeType, size: file.size });
      else {
        own.set(uri, { uri, name: part, mimeType: DIRECTORY_MIME_TYPE });
        if (!children.has(uri)) children.set(uri, new Map());
      }
      directory = uri;
    }
  }
  const sorted = new Map<string, Resource[]>();
  for (const [uri, found] of children) {
    sorted.set(
      uri,
      [...found.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
    );
  }
  return sorted;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
