// The shared decorator suite (../test/suite.ts) from source, its TC39 decorators lowered by @toolsmith/vitest.
(globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = "TC39 standard decorators";
// A specifier tsc does not follow: tsconfig.test.json would type-check the suite in one dialect only.
for (const entry of ["../test/suite.js", "../test/issue-tracker.js"]) await import(entry);
