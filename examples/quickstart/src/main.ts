import { serveStdio } from "@toolsmith/transport-stdio";
import { createQuickstartServer } from "./server.js";

serveStdio(createQuickstartServer());
