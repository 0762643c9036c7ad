// Every TSDoc @example in packages/*/src is a region of a type-checked file: its fence names the file (from the
// package's folder) and the region, and this script copies the region into the block.
//
//   * @example
//   * ```ts source="examples/wire.ts#McpError"
//   * throw new McpError(ErrorCode.InvalidParams, "Unknown tool: nope");
//   * ```
//
// In packages/core/examples/wire.ts the code sits between `//#region McpError` and `//#endregion McpError`, where
// `pnpm typecheck` compiles it against the packages' real types. Blocks are found by their fence, never by line,
// so a block moves with its symbol into any file of the package; running twice writes nothing new.
// `--check` (part of `pnpm lint`) writes nothing and fails (exit 1), naming each block that differs from its
// region, an @example with no source, a missing file or region, and a region no block shows.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const EXAMPLE_TAG = /^\s*\*\s*@example\b/;
const OPENING = /^(\s*\*)\s?```(\w+) source="([^"#]+)#([^"]+)"\s*$/;
const CLOSING = /^\s*\*\s?```\s*$/;
const COMMENT_END = /\*\//;
const REGION = /^\s*\/\/#region (\S+)\s*$/;
const END_REGION = /^\s*\/\/#endregion(?: (\S+))?\s*$/;
const DECLARED =
  /\b(?:class|interface|type|function|const|let|var|enum)\s+([\w$]+)|^\s*(?:readonly\s+)?([\w$]+)\s*[?(<:]/;

/** The regions of an example file by name, each dedented and without blank lines at either end. */
export function regionsOf(text, file) {
  const regions = new Map();
  const problems = [];
  let open;
  text.split(/\r?\n/).forEach((line, index) => {
    const start = REGION.exec(line);
    const end = END_REGION.exec(line);
    if (start) {
      if (open) problems.push(`${file}:${index + 1}: region ${start[1]} opens inside region ${open.name}`);
      else if (regions.has(start[1])) problems.push(`${file}:${index + 1}: a second region named ${start[1]}`);
      else open = { name: start[1], lines: [] };
    } else if (end) {
      if (!open) problems.push(`${file}:${index + 1}: #endregion with no region open`);
      else if (end[1] !== undefined && end[1] !== open.name) {
        problems.push(`${file}:${index + 1}: #endregion ${end[1]} closes region ${open.name}`);
      } else {
        regions.set(open.name, dedent(open.lines));
        open = undefined;
      }
    } else open?.lines.push(line);
  });
  if (open) problems.push(`${file}: region ${open.name} is never closed`);
  return { regions, problems };
}

function dedent(lines) {
  const body = [...lines];
  while (body.length > 0 && body[0].trim() === "") body.shift();
  while (body.length > 0 && body.at(-1).trim() === "") body.pop();
  const indent = Math.min(...body.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)[0].length));
  return body.map((line) => (line.trim() === "" ? "" : line.slice(indent)));
}

/**
 * The source text with each @example block rewritten from its region. `regionOf(source, region)` answers
 * `{ code }` (lines) or `{ problem }`. Returns the new text, the blocks that differed, and the problems.
 */
export function syncSource(text, file, regionOf) {
  // A file keeps its line endings (a CRLF checkout gets CRLF blocks).
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const out = [];
  const drifted = [];
  const problems = [];
  const used = [];
  let inDoc = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    out.push(line);
    if (!inDoc) {
      inDoc = line.includes("/**") && !line.slice(line.indexOf("/**")).includes("*/");
      continue;
    }
    if (COMMENT_END.test(line)) {
      inDoc = false;
      continue;
    }
    if (!EXAMPLE_TAG.test(line)) continue;
    const fence = OPENING.exec(lines[i + 1] ?? "");
    if (!fence) {
      problems.push(
        `${file}:${i + 1}: an @example with no source file: open it with \`\`\`ts source="examples/<file>.ts#<region>"`,
      );
      continue;
    }
    const [, prefix, , source, region] = fence;
    const close = lines.findIndex(
      (candidate, at) => at > i + 1 && (CLOSING.test(candidate) || COMMENT_END.test(candidate)),
    );
    if (close < 0 || !CLOSING.test(lines[close])) {
      problems.push(`${file}:${i + 2}: the fence of ${source}#${region} is not closed before the comment ends`);
      continue;
    }
    out.push(lines[i + 1]);
    const found = regionOf(source, region);
    const current = lines.slice(i + 2, close);
    if (found.problem !== undefined) {
      problems.push(`${file}:${i + 2}: ${found.problem}`);
      out.push(...current);
    } else if (found.code.some((code) => code.includes("*/"))) {
      problems.push(`${file}:${i + 2}: ${source}#${region} holds "*/", which would end the comment`);
      out.push(...current);
    } else {
      used.push(`${source}#${region}`);
      const wanted = found.code.map((code) => (code === "" ? prefix : `${prefix} ${code}`));
      if (wanted.join("\n") !== current.join("\n")) {
        drifted.push(`${file}:${i + 1}: the @example of ${symbolAfter(lines, close)} differs from ${source}#${region}`);
      }
      out.push(...wanted);
    }
    out.push(lines[close]);
    i = close;
  }
  return { text: out.join(eol), drifted, problems, used };
}

// The name declared after the comment that holds line `from`, to name the block in a report.
function symbolAfter(lines, from) {
  let at = from;
  while (at < lines.length && !COMMENT_END.test(lines[at])) at++;
  for (at++; at < lines.length; at++) {
    if (lines[at].trim() === "" || lines[at].trim().startsWith("@")) continue;
    const match = DECLARED.exec(lines[at]);
    return match ? (match[1] ?? match[2]) : "the declaration below";
  }
  return "the declaration below";
}

function filesBelow(dir, keep) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesBelow(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

/**
 * Sync (or with `check`, compare) every @example in `root`'s packages/*\/src with its region. Returns what
 * differed (and, unless `check`, was rewritten) and every problem, one line each, paths from `root`.
 */
export function syncExamples(root, { check = false } = {}) {
  const drifted = [];
  const problems = [];
  const rel = (path) => relative(root, path).split("\\").join("/");
  for (const name of readdirSync(join(root, "packages")).sort()) {
    const pkg = join(root, "packages", name);
    const exampleFiles = filesBelow(join(pkg, "examples"), (file) => file.endsWith(".ts"));
    const parsed = new Map();
    for (const path of exampleFiles) {
      const result = regionsOf(readFileSync(path, "utf8"), rel(path));
      parsed.set(rel(path), result.regions);
      problems.push(...result.problems);
    }
    const used = new Set();
    const regionOf = (source, region) => {
      const regions = parsed.get(rel(join(pkg, source)));
      if (!regions) return { problem: `${rel(join(pkg, source))} is no example file of this package` };
      const code = regions.get(region);
      return code ? { code } : { problem: `${rel(join(pkg, source))} has no region ${region}` };
    };
    for (const path of filesBelow(join(pkg, "src"), (file) => /\.[cm]?tsx?$/.test(file))) {
      const text = readFileSync(path, "utf8");
      const result = syncSource(text, rel(path), regionOf);
      drifted.push(...result.drifted);
      problems.push(...result.problems);
      for (const key of result.used) used.add(rel(join(pkg, key)));
      if (!check && result.text !== text) writeFileSync(path, result.text);
    }
    for (const [file, regions] of parsed) {
      for (const region of regions.keys()) {
        if (!used.has(`${file}#${region}`)) problems.push(`${file}: region ${region} is shown by no @example`);
      }
    }
  }
  return { drifted, problems };
}

// Compared as URLs, so a checkout whose path holds a space or a non-ASCII letter runs (and fails) the check too.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const check = process.argv.includes("--check");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const { drifted, problems } = syncExamples(root, { check });
  for (const line of problems) process.stderr.write(`sync-examples: ${line}\n`);
  if (check) {
    for (const line of drifted) process.stderr.write(`sync-examples: ${line}; run node scripts/sync-examples.mjs\n`);
  } else if (drifted.length > 0) process.stdout.write(`sync-examples: rewrote ${drifted.length} @example blocks\n`);
  process.exit(problems.length === 0 && (!check || drifted.length === 0) ? 0 : 1);
}
