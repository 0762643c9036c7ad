import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, expect } from "vitest";
import { FIXTURE_SCRIPT } from "../../transports/src/fixture-script.js";
import { transportSuite } from "../../transports/src/transport-suite.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";

// The shared transport suite over stdio, each client spawning the built fixture under Bun or Deno (build first).
// What the servers wrote to stderr (their logger prints warnings and worse), read so a full pipe never blocks them.
const stderr: string[] = [];
afterAll(() => {
  // No request made a server log a warning or an error of its own, and the runtime said nothing either.
  expect(stderr.join("")).toBe("");
});

for (const name of RUNTIME_NAMES) {
  const target = runtime(name);
  transportSuite(`${name}: stdio`, {
    transport: (fixture) => {
      const transport = new StdioClientTransport({
        command: target.command,
        args: target.args(FIXTURE_SCRIPT),
        env: target.env({ FIXTURE: fixture }),
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
      return transport;
    },
    // A line over maxLineBytes is answered -32600 with the id scanned from it, and dropped.
    isOversizeError: (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidRequest,
  });
}
