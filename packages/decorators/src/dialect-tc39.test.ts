// The shared decorator suite (../test/suite.ts), as tsc compiled it with TC39 standard decorators.
// vite does not lower TC39 decorators, so the suite runs from tsc's output (built by `pnpm test`).
const entry = "../test-dist/tc39/dialect-tc39.js";
await import(entry);
