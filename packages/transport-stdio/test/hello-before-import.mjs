// A server whose own imports print before @toolsmith/transport-stdio is imported: the redirect-stdout subpath goes first.
import "@toolsmith/transport-stdio/redirect-stdout";
import "./say-hello.mjs";
import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";

const server = createServer({ name: "hello", version: "1.0.0" });
server.tool({ name: "ping_tool", description: "Say pong", handler: () => "pong" });
serveStdio(server);
