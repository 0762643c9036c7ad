// The decorator suites both dialect entries run (src/dialect-tc39.test.ts, src/dialect-legacy.test.ts): one list.
const SHARED = [
  "./dialect-suite.js",
  "./decorators-suite.js",
  "./method-decorator-suite.js",
  "./definitions-suite.js",
  "./definitions-named-methods-suite.js",
  "./decorator-types-suite.js",
  "./mcp-server-suite.js",
  "./use-suite.js",
  "./use-modules-suite.js",
  "./use-method-suite.js",
  "./issue-tracker.js",
  "./tasks-suite.js",
  "./apps-suite.js",
  "./standard-schema-suite.js",
  "./json-schema-suite.js",
  "./scopes-suite.js",
  "./schema-types-suite.js",
  "./skills-suite.js",
];

/** Import every shared suite, their titles naming `dialect`, then `only`: the suites of that dialect alone. */
export async function importSuites(dialect: string, only: readonly string[] = []): Promise<void> {
  (globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = dialect;
  // Specifiers tsc does not follow: tsconfig.test.json would type-check the suites in the TC39 dialect only.
  for (const entry of [...SHARED, ...only]) await import(entry);
}
