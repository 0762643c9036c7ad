import { serveStdio } from "@toolsmith/transport-stdio";
import { ConformanceServer } from "./conformance-server.js";

// The transport is this file's only concern (issue #7 adds --http here).
serveStdio(new ConformanceServer({ watchIntervalMs: 3000 }));
