// The shared decorator suites (../test/*-suite.ts) from source, their TC39 decorators lowered by @toolsmith/vitest.
import { importSuites } from "../test/suites.js";

await importSuites("TC39 standard decorators");
