import { serveStdio } from "@toolsmith/transport-stdio";
import { Wiretap } from "./wiretap.js";

const wiretap = new Wiretap();
serveStdio(wiretap, { tap: wiretap.record });
process.stderr.write("wiretap-mcp: listening on stdio\n");
