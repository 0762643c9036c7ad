import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { track } from "../../../scripts/child-processes.js";
import { within } from "../../../scripts/wait.js";
import { BIN, NOTES, runCli } from "./run-cli.test-util.js";

const SESSION = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bash","version":"5.3"}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"milk"}}}',
  "not json at all",
  '{"jsonrpc":"2.0","id":"s-1","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
];

/** Every byte a process writes to stdout for `input`. */
async function stdoutOf(args: string[], input: string): Promise<Buffer> {
  const child = track(spawn(process.execPath, args, { stdio: ["pipe", "pipe", "ignore"] }));
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise((resolve) => child.once("close", resolve));
  child.stdin.end(input);
  await within(closed, `node ${args.join(" ")} to finish`);
  return Buffer.concat(chunks);
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("toolsmith wire", () => {
  it("passes the bytes through unchanged, both ways", async () => {
    const input = `${SESSION.join("\n")}\n`;
    const direct = await stdoutOf([NOTES], input);
    const proxied = await stdoutOf([BIN, "wire", "--log", "/dev/null", "node", NOTES], input);
    expect(direct.length).toBeGreaterThan(100);
    expect(proxied.equals(direct)).toBe(true);
  });

  it("logs each line to stderr with its direction, era, what it is and how long a request took", async () => {
    const run = await runCli(["wire", "node", NOTES], { input: `${SESSION.join("\n")}\n` });
    expect(run.code).toBe(0);
    const log = run.stderr.split("\n");
    expect(log[0]).toBe(`wire: node ${NOTES}; → host to server, ← server to host`);
    const time = String.raw`\d\d:\d\d:\d\d\.\d{3} \+\d+\.\d{3}s`;
    const has = (pattern: string) =>
      expect(log).toContainEqual(expect.stringMatching(new RegExp(`^${time} ${pattern}`)));
    has('→ 2025-11-25 initialize #0 \\{"jsonrpc"');
    has('← 2025-11-25 result #0 initialize \\d+\\.\\dms \\{"jsonrpc"');
    has("→ 2025-11-25 notifications/initialized ");
    has("→ 2025-11-25 tools/call #1 ");
    has("← 2025-11-25 result #1 tools/call \\d+\\.\\dms ");
    has("→ not JSON not json at all$");
    expect(log).toContainEqual(expect.stringMatching(/ ← 2025-11-25 error -32700 #null /));
    expect(log).toContainEqual(expect.stringMatching(/ → 2026-07-28 tools\/list #"s-1" /));
    expect(log).toContainEqual(expect.stringMatching(/ ← 2026-07-28 result #"s-1" tools\/list /));
    expect(log.at(-2)).toBe("wire: the server exited (code 0)");
  });

  it.each([
    ["legacy" as const, "2025-11-25"],
    [{ pin: "2026-07-28" }, "2026-07-28"],
  ])("sits between the official client (%j) and the server, logging to --log", async (mode, version) => {
    dir = mkdtempSync(join(tmpdir(), "toolsmith-wire-"));
    const log = join(dir, "wire.log");
    const client = new Client({ name: "wire-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "wire", "--log", log, "node", NOTES],
      stderr: "pipe",
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "search", arguments: { query: "wire" } });
      expect(result.structuredContent).toEqual({ matches: [{ id: "2", title: "Wiretap" }] });
    } finally {
      await client.close();
    }
    const lines = readFileSync(log, "utf8").split("\n");
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(` → ${version} tools/call #\\d+ `)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(` ← ${version} result #\\d+ tools/call [\\d.]+ms `)));
  });

  it("exits with the server's exit code, and 3 when it cannot start it", async () => {
    const failing = await runCli(["wire", "node", "-e", "process.exit(7)"]);
    expect(failing.code).toBe(7);
    const missing = await runCli(["wire", "no-such-command-anywhere"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("error: could not start no-such-command-anywhere");
    const url = await runCli(["wire", "http://127.0.0.1:3000/mcp"]);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain("wire runs a stdio server");
    const help = await runCli(["wire", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: toolsmith wire [options] <command...>");
  });
});
