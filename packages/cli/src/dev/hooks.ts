// Node module hooks for `toolsmith dev`: TypeScript files are compiled by esbuild as they load.
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { MessagePort } from "node:worker_threads";
import { build } from "esbuild";

const TS = /\.(?:m?ts|tsx)$/;
let port: MessagePort | undefined;

export function initialize(data: { port?: MessagePort } | undefined): void {
  port = data?.port;
}

type Next<C, R> = (specifier: string, context: C) => Promise<R>;
interface ResolveContext {
  parentURL?: string;
}
interface ResolveResult {
  url: string;
  format?: string | null;
}

/** `./x.js` written in a .ts file means `./x.ts` (TypeScript's NodeNext convention) when there is no x.js. */
export async function resolve(
  specifier: string,
  context: ResolveContext,
  next: Next<ResolveContext, ResolveResult>,
): Promise<ResolveResult> {
  const relative = specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("file:");
  if (relative && context.parentURL && TS.test(context.parentURL) && /\.[mc]?js$/.test(specifier)) {
    const url = new URL(specifier, context.parentURL);
    if (!existsSync(url)) {
      const ts = specifier.replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mts");
      if (existsSync(new URL(ts, context.parentURL))) return next(ts, context);
    }
  }
  return next(specifier, context);
}

interface LoadContext {
  format?: string | null;
}
interface LoadResult {
  format: string;
  source?: string | Buffer | null;
  shortCircuit?: boolean;
}

export async function load(
  url: string,
  context: LoadContext,
  next: Next<LoadContext, LoadResult>,
): Promise<LoadResult> {
  if (!url.startsWith("file:") || !TS.test(url) || url.includes("/node_modules/")) return next(url, context);
  const file = fileURLToPath(url);
  port?.postMessage(file);
  // build (not transform) so that esbuild reads the file's nearest tsconfig.json, its extends included:
  // experimentalDecorators picks the legacy dialect, otherwise TC39 decorators are lowered for Node 20.
  const result = await build({
    entryPoints: [file],
    // Source map paths are relative to the working directory: the file's own, so that they resolve beside it.
    absWorkingDir: dirname(file),
    bundle: false,
    write: false,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node}`,
    sourcemap: "inline",
    sourcesContent: true,
    logLevel: "silent",
    loader: { ".ts": "ts", ".mts": "ts", ".tsx": "tsx" },
  }).catch(
    (error: { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }) => {
      const first = error.errors?.[0];
      const where = first?.location
        ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: `
        : "";
      throw new SyntaxError(`${where}${first?.text ?? String(error)}`);
    },
  );
  const [output] = result.outputFiles;
  return { format: "module", source: output?.text ?? "", shortCircuit: true };
}
