(globalThis as { __toolsmithDialect?: string }).__toolsmithDialect = "TC39 standard decorators";
await import("./suite.js");
