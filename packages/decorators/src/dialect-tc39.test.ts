// The shared decorator suite (../test/suite.ts), as tsc compiled it with TC39 standard decorators.
// vite does not lower TC39 decorators, so the suite runs from tsc's output (`pnpm build:tests`, run by `pnpm test`).
import { statSync } from "node:fs";

const built = (path: string) => statSync(new URL(path, import.meta.url)).mtimeMs;
if (built("../test/suite.ts") > built("../test-dist/tc39/suite.js")) {
  throw new Error("test-dist/tc39 is older than test/suite.ts: run `npx -y pnpm@12.4.2 build:tests` first");
}
const entry = "../test-dist/tc39/dialect-tc39.js";
await import(entry);
