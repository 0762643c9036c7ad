import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { Notes } from "./notes.js";

const server = new Notes([
  { title: "Groceries", body: "milk, eggs, bread", tags: ["errands"] },
  { title: "Wiretap", body: "show the wire to the model", tags: ["ideas", "mcp"] },
]);
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
