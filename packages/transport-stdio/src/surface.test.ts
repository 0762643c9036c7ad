import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves an entry only by changing these lists on purpose.
const ENTRIES = {
  // @toolsmith/transport-stdio
  "index.ts": {
    values: ["LineReader", "redirectStdout", "releaseStdout", "serveStdio"],
    types: ["LineEvent", "StdioConnection", "StdioOptions", "StdoutRedirect", "WireEntry"],
  },
  // @toolsmith/transport-stdio/redirect-stdout
  "redirect-on-import.ts": { values: ["releaseStdout"], types: [] },
};

surfaceSuite("@toolsmith/transport-stdio", import.meta.url, ENTRIES);
