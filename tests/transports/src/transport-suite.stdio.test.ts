import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, expect } from "vitest";
import { FIXTURE_SCRIPT } from "./fixture-script.js";
import { transportSuite } from "./transport-suite.js";

// The client spawns the built fixture (npx -y pnpm@12.4.2 run build): each client gets its own server process.

// What the servers wrote to stderr (their logger prints warnings and worse), read so a full pipe never blocks them.
const stderr: string[] = [];
afterAll(() => {
  // No request made a server log a warning or an error of its own.
  expect(stderr.join("")).toBe("");
});

transportSuite("stdio", {
  transport: (fixture) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE_SCRIPT],
      env: { ...(process.env as Record<string, string>), FIXTURE: fixture },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
    return transport;
  },
  oneStream: true,
  // A line over maxLineBytes is answered -32600 with the id scanned from it, and dropped.
  isOversizeError: (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidRequest,
});
