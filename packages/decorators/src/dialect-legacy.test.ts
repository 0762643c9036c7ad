// The shared decorator suite (../test/suite.ts), as tsc compiled it with experimentalDecorators and
// emitDecoratorMetadata, plus the legacy-only schema-class tests.
const entry = "../test-dist/legacy/dialect-legacy.js";
await import(entry);
