(globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = "legacy experimentalDecorators";
await import("./suite.js");
await import("./legacy-only.js");
