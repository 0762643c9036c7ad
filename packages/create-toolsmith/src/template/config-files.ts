import type { ProjectOptions } from "../options.js";
import { formatJson as json } from "./json.js";

export function tsconfig({ dialect, runtime }: ProjectOptions): string {
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
      // Bun's own types beside Node's (Bun serves node:* too); Deno's few are in src/deno.d.ts.
      types: runtime === "bun" ? ["node", "bun"] : ["node"],
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
    exclude: ["src/**/*.test.ts"],
  });
}

/** Type-checks src with its tests (vitest only strips types). */
export function tsconfigTest(): string {
  return json({ extends: "./tsconfig.json", compilerOptions: { noEmit: true }, include: ["src"], exclude: [] });
}

export function vitestConfig({ dialect }: ProjectOptions): string {
  if (dialect === "legacy") {
    return `import { defineConfig } from "vitest/config";

// Tests import the class from source: vite compiles experimentalDecorators itself.
export default defineConfig({ test: { include: ["src/**/*.test.ts"] } });
`;
  }
  return `import { toolsmith } from "@toolsmith/vitest";
import { defineConfig } from "vitest/config";

// Tests import the class from source: the plugin lowers TC39 decorators, which vite leaves as they are.
export default defineConfig({ plugins: [toolsmith()], test: { include: ["src/**/*.test.ts"] } });
`;
}

export function biomeJson(): string {
  return json({
    $schema: "./node_modules/@biomejs/biome/configuration_schema.json",
    files: { includes: ["**", "!**/dist", "!**/node_modules", "!**/*.md"] },
    formatter: { enabled: true, indentStyle: "space", indentWidth: 2, lineWidth: 120 },
    linter: { enabled: true, rules: { preset: "recommended" } },
    javascript: { formatter: { quoteStyle: "double" } },
  });
}

export function gitignore({ tests, runtime }: ProjectOptions): string {
  const worker = runtime === "workers" ? [".dev.vars", ".wrangler/"] : [];
  return ["node_modules/", "dist/", ...(tests ? ["coverage/"] : []), "*.tsbuildinfo", ...worker, ""].join("\n");
}
