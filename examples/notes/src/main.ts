import { serveStdio } from "@toolsmith/transport-stdio";
import { Notes } from "./notes.js";

serveStdio(
  new Notes([
    { title: "Groceries", body: "milk, eggs, bread", tags: ["errands"] },
    { title: "Wiretap", body: "show the wire to the model", tags: ["ideas", "mcp"] },
  ]),
);
