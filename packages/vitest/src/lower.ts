import { type TsconfigRaw, transform } from "esbuild";

// What esbuild's transform takes from a tsconfig (it reads no files itself); experimentalDecorators stays off.
const PASSED_ON = [
  "alwaysStrict",
  "importsNotUsedAsValues",
  "preserveValueImports",
  "target",
  "useDefineForClassFields",
  "verbatimModuleSyntax",
] as const;

/**
 * Compile one TypeScript file with TC39 standard decorators lowered, leaving JSX for vite. The target is the
 * running Node, so only what it lacks (decorators, always) is rewritten; the source map points into `file`.
 */
export async function lowerDecorators(
  code: string,
  file: string,
  compilerOptions: Record<string, unknown> = {},
): Promise<{ code: string; map: string }> {
  const options: Record<string, unknown> = { experimentalDecorators: false };
  for (const key of PASSED_ON) if (compilerOptions[key] !== undefined) options[key] = compilerOptions[key];
  const result = await transform(code, {
    loader: file.endsWith("x") ? "tsx" : "ts",
    jsx: "preserve",
    target: `node${process.versions.node}`,
    sourcemap: "external",
    sourcefile: file,
    tsconfigRaw: { compilerOptions: options } as TsconfigRaw,
  });
  return { code: result.code, map: result.map };
}
