// The shared decorator suite (../test/suite.ts) from source, its TC39 decorators lowered by @toolsmith/vitest.
(globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = "TC39 standard decorators";
// Specifiers tsc does not follow: tsconfig.test.json would type-check the suites in one dialect only.
for (const entry of [
  "../test/suite.js",
  "../test/modules-suite.js",
  "../test/method-use-suite.js",
  "../test/issue-tracker.js",
])
  await import(entry);
