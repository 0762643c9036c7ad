import type { ProjectOptions } from "../options.js";
import { formatJson as json } from "./json.js";

export function tsconfig({ dialect }: ProjectOptions): string {
  const decorators = dialect === "legacy" ? { experimentalDecorators: true, emitDecoratorMetadata: true } : {};
  return json({
    compilerOptions: {
      target: "ES2022",
      lib: dialect === "tc39" ? ["ES2023", "ESNext.Decorators"] : ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      ...decorators,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      sourceMap: true,
      types: ["node"],
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
    exclude: ["src/**/*.test.ts"],
  });
}

/** TC39: compiles src with its tests into test-build for vitest (swap for the @toolsmith/vitest plugin when published). */
export function tsconfigTest({ dialect }: ProjectOptions): string {
  const compilerOptions = dialect === "tc39" ? { outDir: "test-build", declaration: false } : { noEmit: true };
  return json({ extends: "./tsconfig.json", compilerOptions, include: ["src"], exclude: [] });
}

export function vitestConfig({ dialect }: ProjectOptions): string {
  if (dialect === "legacy") {
    return `import { defineConfig } from "vitest/config";

// Tests run on the TypeScript sources: vite compiles experimentalDecorators itself.
export default defineConfig({ test: { include: ["src/**/*.test.ts"] } });
`;
  }
  return `import { defineConfig } from "vitest/config";

// Vite does not lower TC39 decorators yet, so tests run on what \`tsc -p tsconfig.test.json\` compiled.
export default defineConfig({ test: { include: ["test-build/**/*.test.js"] } });
`;
}

export function biomeJson(): string {
  return json({
    $schema: "./node_modules/@biomejs/biome/configuration_schema.json",
    files: { includes: ["**", "!**/dist", "!**/test-build", "!**/node_modules", "!**/*.md"] },
    formatter: { enabled: true, indentStyle: "space", indentWidth: 2, lineWidth: 120 },
    linter: { enabled: true, rules: { preset: "recommended" } },
    javascript: { formatter: { quoteStyle: "double" } },
  });
}

export function gitignore({ tests }: ProjectOptions): string {
  return ["node_modules/", "dist/", ...(tests ? ["test-build/", "coverage/"] : []), "*.tsbuildinfo", ""].join("\n");
}
