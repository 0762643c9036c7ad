import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const ENTRIES = {
  "index.ts": { values: ["EXIT", "main"], types: ["ExitCode"] },
};

surfaceSuite("@toolsmith/cli", import.meta.url, ENTRIES);
