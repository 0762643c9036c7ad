// `pnpm run docs`: the HTML API reference of every published package, one module per entry of its package.json
// `exports` (read from there, so a new subpath is documented without a change here), into docs/api/html/ (or the
// folder after --out). Any warning (a type a signature uses that no entry exports, a broken {@link}) fails it.
import { join, relative, resolve } from "node:path";
import { Application, Converter, ReflectionKind } from "typedoc";
import { entriesOf } from "./entries.mjs";

const root = new URL("../..", import.meta.url).pathname;
const packages = join(root, "packages");
const at = process.argv.indexOf("--out");
const out = at > 0 ? resolve(process.argv[at + 1]) : join(root, "docs/api/html");

const started = performance.now();
const entries = entriesOf(packages);
const app = await Application.bootstrapWithPlugins({
  name: "Toolsmith",
  entryPoints: entries.map((entry) => entry.file),
  tsconfig: join(root, "docs/api/tsconfig.json"),
  out,
  readme: join(root, "docs/api/index.md"),
  displayBasePath: packages,
  // tsc 7 type-checks (`pnpm typecheck`); typedoc reads the same source with TypeScript 6 (see README.md).
  skipErrorChecking: true,
  treatWarningsAsErrors: true,
  excludePrivate: true,
  excludeInternal: true,
  sort: ["kind", "alphabetical"],
  githubPages: false,
});
// typedoc names a module by its path below displayBasePath ("core/src/middleware/kit"); users import it by name.
const names = new Map(
  entries.map((entry) => [relative(packages, entry.file).replace(/(\/index)?\.ts$/, ""), entry.name]),
);
app.converter.on(Converter.EVENT_CREATE_DECLARATION, (_context, reflection) => {
  if (reflection.kindOf(ReflectionKind.Module)) reflection.name = names.get(reflection.name) ?? reflection.name;
});
// As typedoc's own command runs: convert, validate (exports, links), then write only what passed.
const project = await app.convert();
if (project) app.validate(project);
if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
await app.generateOutputs(project);
if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(`docs: ${entries.length} entries in ${relative(process.cwd(), out) || "."}/ (${seconds} s)\n`);
