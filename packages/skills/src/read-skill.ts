import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import { type Guard, SKILL_LIMITS, type SkillDefinition } from "@toolsmith/core";

// Skills from folders on disk, read once at start and checked before anything is served: only regular files inside
// the folder, never through a link, each bounded before it is read. What core checks (paths, names, frontmatter,
// digests) it checks again when the definition is registered.

/** How `readSkill` and `readSkills` read. */
export interface ReadSkillOptions {
  /** Who may see the skills read (see core's `Guard`). */
  guard?: Guard;
  /** Serve files that are not UTF-8 text (images, archives) as bytes; by default such a file is refused. */
  binary?: boolean;
  /** The most files and folders one read may walk before it refuses the folder (default 10,000). */
  maxEntries?: number;
}

/** The most files and folders a read walks by default: a tree past it is refused, not served in part. */
export const MAX_ENTRIES = 10_000;

/** A folder that cannot be served, and why: thrown at start, naming the file. */
export class SkillFolderError extends Error {
  override readonly name = "SkillFolderError";
}

const SKILL_FILE = "SKILL.md";
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A regular file as the walk saw it: its size, and which file it was (a read must find that one). */
interface Seen {
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
}

interface Walked {
  /** Every regular file, by its `/`-separated path below the root. */
  readonly files: Map<string, Seen>;
}

// Every regular file below `root`, refusing links, other kinds of file and a tree of more than `max` entries.
function walk(root: string, max: number): Walked {
  const files = new Map<string, Seen>();
  let entries = 0;
  const visit = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      // Hidden files and folders (.git, .DS_Store) are not part of a skill.
      if (name.startsWith(".")) continue;
      if (++entries > max) {
        throw new SkillFolderError(`${root} holds more than ${max} files and folders; serve a smaller folder`);
      }
      const path = join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) {
        throw new SkillFolderError(`${path} is a symbolic link: a skill is served from the real files in its folder`);
      }
      if (stat.isDirectory()) visit(path, relative);
      else if (stat.isFile()) files.set(relative, { size: stat.size, dev: stat.dev, ino: stat.ino });
      else throw new SkillFolderError(`${path} is not a regular file`);
    }
  };
  const top = lstatSync(root, { throwIfNoEntry: false });
  if (top === undefined) throw new SkillFolderError(`there is no folder ${root}`);
  if (top.isSymbolicLink()) throw new SkillFolderError(`${root} is a symbolic link: give the real folder`);
  if (!top.isDirectory()) throw new SkillFolderError(`${root} is not a folder`);
  visit(root, "");
  return { files };
}

// At most `max` bytes of `path`, through one descriptor: a file swapped (for a link, or through a folder swapped for
// one) or grown since the walk saw it is caught.
function readBounded(path: string, max: number, seen: Seen): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SkillFolderError(`${path} is not a regular file`);
    if (stat.dev !== seen.dev || stat.ino !== seen.ino) {
      throw new SkillFolderError(`${path} changed while the folder was read: read it again`);
    }
    if (stat.size > max)
      throw new SkillFolderError(`${path} is ${stat.size} bytes: a skill may hold ${SKILL_LIMITS.bytes} in all`);
    const bytes = new Uint8Array(stat.size + 1);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > stat.size) throw new SkillFolderError(`${path} grew while it was read`);
    return bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

// The files of the skill at `dir` (`prefix` its place in a walk of `root`), each checked against the limits first;
// a file already in `read` (an enclosing or nested skill's too) is not read again (core checks the total again).
function filesOf(
  root: string,
  walked: Walked,
  prefix: string,
  options: ReadSkillOptions,
  read = new Map<string, Uint8Array>(),
): Record<string, Uint8Array> {
  const mine = [...walked.files].filter(([path]) => prefix === "" || path.startsWith(`${prefix}/`));
  const dir = prefix === "" ? root : join(root, ...prefix.split("/"));
  if (mine.length > SKILL_LIMITS.files) {
    throw new SkillFolderError(`${dir} holds ${mine.length} files: a skill may hold ${SKILL_LIMITS.files}`);
  }
  const files: Record<string, Uint8Array> = {};
  let total = 0;
  for (const [path, seen] of mine) {
    const { size } = seen;
    const full = join(root, ...path.split("/"));
    total += size;
    if (total > SKILL_LIMITS.bytes) {
      throw new SkillFolderError(`${full}: the skill's files pass ${SKILL_LIMITS.bytes} bytes, the extension's limit`);
    }
    const bytes = read.get(path) ?? readBounded(full, SKILL_LIMITS.bytes - (total - size), seen);
    read.set(path, bytes);
    if (!options.binary && (bytes.includes(0) || !isUtf8(bytes))) {
      throw new SkillFolderError(`${full} is not UTF-8 text; pass { binary: true } to serve such files as bytes`);
    }
    Object.defineProperty(files, prefix === "" ? path : path.slice(prefix.length + 1), {
      value: bytes,
      enumerable: true,
    });
  }
  return files;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// `toolsmith dev` watches what its server read (as it watches the modules it loaded): a change restarts it.
function reportRead(dir: string): void {
  if (process.env.TOOLSMITH_DEV === "1") process.send?.({ toolsmithDevLoaded: dir });
}

/**
 * The skill in folder `dir` (its `SKILL.md` at the root), served at `path` (default: the folder's name, which is the
 * skill's name): every file below it, hidden ones aside. Throws a `SkillFolderError` naming the file on a link, a file
 * that is not a regular one, a file too large or not text, or more than the extension's 512 files or 16 MiB.
 * @example
 * ```ts source="examples/skills.ts#readSkill"
 * server.skill(readSkill("./skills/git-workflow"));
 * ```
 */
export function readSkill(dir: string, options: ReadSkillOptions & { path?: string } = {}): SkillDefinition {
  const root = resolve(dir);
  const walked = walk(root, options.maxEntries ?? MAX_ENTRIES);
  if (!walked.files.has(SKILL_FILE)) throw new SkillFolderError(`${join(root, SKILL_FILE)} does not exist`);
  const definition: SkillDefinition = {
    path: options.path ?? basename(root),
    files: filesOf(root, walked, "", options),
    source: root,
  };
  if (options.guard) definition.guard = options.guard;
  reportRead(root);
  return definition;
}

/**
 * Every skill below folder `root`: each folder holding a `SKILL.md` (nested ones too: their files are also their
 * enclosing skill's), served at its path below `root`, after `prefix` when given. The walk is bounded and checked
 * as `readSkill`'s.
 * @example
 * ```ts source="examples/skills.ts#readSkills"
 * for (const skill of readSkills("./skills")) server.skill(skill);
 * ```
 */
export function readSkills(root: string, options: ReadSkillOptions & { prefix?: string } = {}): SkillDefinition[] {
  const top = resolve(root);
  const walked = walk(top, options.maxEntries ?? MAX_ENTRIES);
  const read = new Map<string, Uint8Array>();
  const definitions: SkillDefinition[] = [];
  for (const path of walked.files.keys()) {
    if (!path.endsWith(`/${SKILL_FILE}`)) continue;
    const prefix = path.slice(0, -SKILL_FILE.length - 1);
    const definition: SkillDefinition = {
      path: options.prefix ? `${options.prefix}/${prefix}` : prefix,
      files: filesOf(top, walked, prefix, options, read),
      source: `${top}${sep}${prefix.split("/").join(sep)}`,
    };
    if (options.guard) definition.guard = options.guard;
    definitions.push(definition);
  }
  reportRead(top);
  return definitions;
}
