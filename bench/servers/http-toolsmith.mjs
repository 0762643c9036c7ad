import { createServer } from "@toolsmith/core";
// Not a declared dependency of the bench (that would touch the lockfile): the built package, by path.
import { listen } from "../../packages/transport-http/dist/index.js";
import { benchPort, withAddTool } from "./http-toolsmith-parts.mjs";

// Port from `--port N` or PORT (0 picks a free one); listen() says the URL on stdout.
const server = withAddTool(createServer({ name: "bench-toolsmith", version: "1.0.0" }));
await listen(server, { port: benchPort(), host: "127.0.0.1", log: process.stdout });
