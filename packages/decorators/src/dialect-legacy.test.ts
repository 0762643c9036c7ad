// The shared decorator suite (../test/suite.ts), as tsc compiled it with experimentalDecorators and
// emitDecoratorMetadata, plus the legacy-only schema-class tests (`pnpm build:tests`, run by `pnpm test`).
import { statSync } from "node:fs";

const built = (path: string) => statSync(new URL(path, import.meta.url)).mtimeMs;
for (const name of ["suite", "legacy-only"]) {
  if (built(`../test/${name}.ts`) > built(`../test-dist/legacy/${name}.js`)) {
    throw new Error(`test-dist/legacy is older than test/${name}.ts: run \`npx -y pnpm@12.4.2 build:tests\` first`);
  }
}
const entry = "../test-dist/legacy/dialect-legacy.js";
await import(entry);
