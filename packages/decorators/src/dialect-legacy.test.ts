// The shared decorator suite (../test/suite.ts) from source, compiled by vite with experimentalDecorators and
// emitDecoratorMetadata (the "legacy" project in vitest.config.ts), plus the legacy-only schema-class tests.
(globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = "legacy experimentalDecorators";
// Specifiers tsc does not follow: tsconfig.test.json would type-check these files in the TC39 dialect.
for (const entry of [
  "../test/suite.js",
  "../test/modules-suite.js",
  "../test/method-use-suite.js",
  "../test/legacy-only.js",
  "../test/issue-tracker.js",
])
  await import(entry);
