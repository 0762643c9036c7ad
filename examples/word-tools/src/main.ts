import { serveStdio } from "@toolsmith/transport-stdio";
import { WordTools } from "./word-tools.js";

serveStdio(new WordTools());
