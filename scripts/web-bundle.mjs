// A module bundled as a web target bundles it (a Worker: workerd's export conditions, no Node.js built-ins), and what
// in it is Node's alone: an import of a built-in module (`node:*`, or bare `fs`, `crypto`, `buffer`, …) and a use of
// one of Node's globals (`Buffer`, `process`, `setImmediate`, a `require` left unbundled, …), each named with the chain of imports
// that reaches it. Used by scripts/web-bundle.test.ts (the check in CI) and bench/bundle.mjs (the sizes).
import { isBuiltin } from "node:module";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The export conditions a Worker's bundler (wrangler) resolves with, after `import` and `default`. */
export const WEB_CONDITIONS = ["workerd", "worker", "browser"];

/** Node's globals that no web runtime has (`global` included: the web's is `globalThis`). */
export const NODE_GLOBALS = [
  "Buffer",
  "process",
  "setImmediate",
  "clearImmediate",
  "module",
  "global",
  "__dirname",
  "__filename",
];

// Each Node global, as a bundle written to find them names it: esbuild's `define` replaces only free references to
// the global (not a local of that name, a property or a string), also as `globalThis.X`.
const MARK = "__toolsmith_node_global_";
const marks = Object.fromEntries(
  NODE_GLOBALS.flatMap((name) => [
    [name, `${MARK}${name}`],
    [`globalThis.${name}`, `${MARK}${name}`],
  ]),
);

// Every import of a Node built-in is kept out of the bundle (an import left in it), so one is reported, not a failure
// to resolve; esbuild resolves before it drops unused code, as wrangler does, so an import nothing uses counts too.
const builtins = {
  name: "node-builtins",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path.startsWith("node:") || isBuiltin(path) ? { path, external: true } : undefined,
    );
  },
};

/**
 * `entry` (a path from the repository's root) bundled as one ESM module for a web target. `source`: Toolsmith's
 * packages from `src/` (the "@toolsmith/source" condition), else their built `dist/`, as a user gets them.
 * `findGlobals`: mark Node's globals (the code is then for reading, not for running). Returns esbuild's result
 * (`outputFiles[0]`, `metafile`).
 */
export function bundleForWeb(entry, { source = false, minify = false, findGlobals = false } = {}) {
  return build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    outfile: "worker.js",
    format: "esm",
    // "neutral", not "browser": esbuild defines `process.env.NODE_ENV` for the browser, which would hide a use.
    platform: "neutral",
    target: "es2022",
    mainFields: ["browser", "module", "main"],
    conditions: source ? ["@toolsmith/source", ...WEB_CONDITIONS] : WEB_CONDITIONS,
    minify,
    metafile: true,
    plugins: [builtins],
    ...(findGlobals ? { define: marks } : {}),
    logLevel: "silent",
  });
}

/** The shortest chain of imports from `from` to each file or module it reaches (the metafile's own names). */
function chains(metafile, from) {
  const chain = new Map([[from, [from]]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const { path } of metafile.inputs[file]?.imports ?? []) {
      if (chain.has(path)) continue;
      chain.set(path, [...chain.get(file), path]);
      queue.push(path);
    }
  }
  return chain;
}

// A global only felt for runs anywhere (`typeof global === "object" ? global : self`, `typeof process !== "undefined"
// && process.env`, a bare `typeof Buffer`): those reads are dropped before a line is searched for the others. typeof
// shields a name alone: of `typeof process.env`, `typeof Buffer?.from`, `typeof global[k]` or a call, the global is
// read first (a ReferenceError where it is none), and `typeof X === "undefined" ? X` reads it where it is not.
const BARE = `(?!\\s*(?:\\??\\.|\\[|\\())`;
const GUARDED = [
  new RegExp(`typeof (${MARK}\\w+) *===? *"(?!undefined")\\w+" *\\? *\\1\\b`, "g"),
  new RegExp(`typeof (${MARK}\\w+) *!==? *"undefined" *&& *\\1\\b`, "g"),
  new RegExp(`typeof ${MARK}\\w+\\b${BARE}`, "g"),
];
const unguarded = (line) => GUARDED.reduce((text, guard) => text.replace(guard, ""), line);

/**
 * What in a bundle made by `bundleForWeb` (with `findGlobals` for the globals) is Node's alone, one line each: the
 * built-in or global, then the chain of imports from `entry` that reaches it. Empty: the bundle is web-standard.
 */
export function nodeOnly(result, entry) {
  const from = relative(root, entry) || entry;
  const reached = chains(result.metafile, from);
  const problems = [];
  for (const [path, chain] of reached) {
    if (path.startsWith("node:") || isBuiltin(path)) problems.push(`Node built-in ${path}: ${chain.join(" → ")}`);
  }
  // Each module in an unminified bundle starts with a comment naming its file.
  let file = from;
  for (const line of result.outputFiles[0].text.split("\n")) {
    const named = /^\/\/ (\S+)$/.exec(line);
    if (named && reached.has(named[1])) file = named[1];
    const names = [...unguarded(line).matchAll(new RegExp(`${MARK}(\\w+)`, "g"))].map(([, name]) => name);
    // A require() esbuild could not bundle is left to Node's, through its shim (`__require`).
    if (/(?<!function )\b__require\(/.test(line) && !/^var __require\b/.test(line)) names.push("require");
    for (const name of names) {
      const problem = `Node global ${name} in ${file}: ${(reached.get(file) ?? [file]).join(" → ")}`;
      if (!problems.includes(problem)) problems.push(problem);
    }
  }
  return problems;
}
