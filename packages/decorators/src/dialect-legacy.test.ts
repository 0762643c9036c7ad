// The shared decorator suites (../test/*-suite.ts) from source, compiled by vite with experimentalDecorators and
// emitDecoratorMetadata (the "legacy" project in vitest.config.ts), plus the legacy-only schema-class suite.
import { importSuites } from "../test/suites.js";

await importSuites("legacy experimentalDecorators", ["./schema-class-suite.js"]);
