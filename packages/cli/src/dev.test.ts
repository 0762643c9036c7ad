import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { until, WAIT_MS } from "../../../scripts/wait.js";
import { BIN, copyFixture, FIXTURES, runCli } from "./run-cli.test-util.js";

const MODES = [
  ["handshake era", "legacy" as const],
  ["stateless era", { pin: "2026-07-28" }],
] as const;

/** The official client on `toolsmith dev …args`, with dev's stderr collected. */
async function devClient(args: string[], mode: (typeof MODES)[number][1]) {
  const client = new Client({ name: "dev-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "dev", ...args],
    env: { ...process.env, NO_COLOR: "1" } as Record<string, string>,
    stderr: "pipe",
  });
  const log = { stderr: "" };
  transport.stderr?.on("data", (chunk: Buffer) => {
    log.stderr += chunk.toString("utf8");
  });
  await client.connect(transport);
  return { client, log };
}

const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe.each(MODES)("toolsmith dev (%s)", (_era, mode) => {
  it.each(["tc39", "legacy"])("runs a %s-decorated server from its TypeScript source", async (dialect) => {
    const { client, log } = await devClient([join(FIXTURES, dialect, "main.ts")], mode);
    try {
      expect(textOf(await client.callTool({ name: "dialect", arguments: {} }))).toBe(dialect);
      expect(textOf(await client.callTool({ name: "greet", arguments: { name: "Ada" } }))).toBe("Hello, Ada!");
    } finally {
      await client.close();
    }
    expect(log.stderr).toMatch(/^toolsmith dev started .*main\.ts \(pid \d+\)$/m);
    // The legacy fixture's tsconfig asks for decorator metadata, which esbuild cannot emit; no tool needs it.
    expect(log.stderr).not.toContain("decorator metadata");
  });

  it("warns once when a legacy tool's input was to come from a schemaClass parameter type", async () => {
    const { client, log } = await devClient([join(FIXTURES, "legacy", "calc-main.ts")], mode);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.map((one) => [one.name, Object.keys(one.inputSchema.properties ?? {})])).toEqual([
        ["add", []],
        ["zero", []],
        ["which", []],
      ]);
      await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    } finally {
      await client.close();
    }
    expect(log.stderr.match(/decorator metadata/g)).toHaveLength(1);
    expect(log.stderr).toContain('Calc: tool "add" has no input schema.');
  });

  it("restarts when a file the server loaded changes, and the client's session goes on", async () => {
    const project = copyFixture("tc39");
    cleanup = project.remove;
    const { client, log } = await devClient([join(project.dir, "main.ts")], mode);
    const changes: string[] = [];
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      changes.push("tools");
    });
    try {
      expect(textOf(await client.callTool({ name: "greet", arguments: { name: "Ada" } }))).toBe("Hello, Ada!");
      // The first process reported the files it loaded; chokidar may take a moment to watch them: write again
      // until dev sees the change (a slow machine gets more time, not a failure).
      const changed = () => log.stderr.includes("greeting.ts changed; restarting");
      const deadline = Date.now() + WAIT_MS;
      while (!changed()) {
        if (Date.now() > deadline) throw new Error("gave up waiting for dev to see greeting.ts change");
        writeFileSync(join(project.dir, "greeting.ts"), 'export const GREETING = "Howdy";\n');
        await until(changed, "", 5000).catch(() => {});
      }
      await until(() => (log.stderr.match(/started/g) ?? []).length >= 2, "the restarted server to start");
      expect(textOf(await client.callTool({ name: "greet", arguments: { name: "Ada" } }))).toBe("Howdy, Ada!");
    } finally {
      await client.close();
    }
    expect(log.stderr).toMatch(/greeting\.ts changed; restarting/);
    if (mode === "legacy") {
      expect(log.stderr).toContain("restarted; the host's session goes on");
      expect(changes).toEqual(["tools"]);
    }
  });
});

describe.each(MODES)("toolsmith dev with skills read from a folder (%s)", (_era, mode) => {
  it("restarts when a skill's file changes on disk, and the client is told the lists changed", async () => {
    const project = copyFixture("skills");
    cleanup = project.remove;
    const { client, log } = await devClient([join(project.dir, "main.ts")], mode);
    const changes: string[] = [];
    client.setNotificationHandler("notifications/resources/list_changed", () => {
      changes.push("resources");
    });
    const skills = new SkillsClient(client);
    const description = async () => (await skills.list()).skills.map((skill) => skill.frontmatter.description);
    try {
      expect(await description()).toEqual(["Take notes the first way"]);
      const file = join(project.dir, "skills", "notes", "SKILL.md");
      const changed = () => log.stderr.includes("SKILL.md changed; restarting");
      const deadline = Date.now() + WAIT_MS;
      while (!changed()) {
        if (Date.now() > deadline) throw new Error("gave up waiting for dev to see SKILL.md change");
        writeFileSync(file, "---\nname: notes\ndescription: Take notes the second way\n---\n\nType them.\n");
        await until(changed, "", 5000).catch(() => {});
      }
      await until(() => (log.stderr.match(/started/g) ?? []).length >= 2, "the restarted server to start");
      expect(await description()).toEqual(["Take notes the second way"]);
      const read = await skills.read((await skills.get("skill://notes/SKILL.md")).skill);
      expect(read.body).toBe("\nType them.\n");
    } finally {
      await client.close();
    }
    if (mode === "legacy") expect(changes).toEqual(["resources"]);
  });
});

describe("toolsmith dev, the rest", () => {
  it("--wire shows every line both ways", async () => {
    const { client, log } = await devClient(["--wire", join(FIXTURES, "tc39", "main.ts")], "legacy");
    try {
      await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    } finally {
      await client.close();
    }
    expect(log.stderr).toMatch(/ → 2025-11-25 initialize #0 /);
    expect(log.stderr).toMatch(/ ← 2025-11-25 result #\d+ tools\/call [\d.]+ms .*Hello, Ada!/);
  });

  it("maps a stack trace to the TypeScript file and line, and ends when the host does", async () => {
    const run = await runCli(["dev", "--no-watch", join(FIXTURES, "tc39", "crash.ts")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: crash on purpose\n    at <anonymous> (${join(FIXTURES, "tc39", "crash.ts")}:4:7)`,
    );
  });

  it("answers what a stopped server left unanswered once each, every id exactly as the host wrote it", async () => {
    const lines = [
      `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"a"}}`,
      `{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"b"}}`,
      `{"jsonrpc":"2.0","id":1,"id":1.50e300,"method":"ping"}`,
      `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
      `[{"jsonrpc":"2.0","id":"x","method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":-1e308,"method":"ping"}]`,
    ];
    const run = await runCli(["dev", "--no-watch", join(FIXTURES, "tc39", "silent.ts")], {
      input: `${lines.join("\n")}\n`,
    });
    const error = (id: string) =>
      `{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"toolsmith dev: the server stopped before answering (it restarted or exited)"}}`;
    expect(run.stdout.split("\n").filter(Boolean)).toEqual([
      error("9007199254740993"),
      error("9007199254740992"),
      error("1.50e300"),
      `[${error('"x"')},${error("-1e308")}]`,
    ]);
  });

  it("a host request whose id looks like dev's own replay of initialize is answered like any other", async () => {
    const lines = [
      `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
      `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
      `{"jsonrpc":"2.0","id":"toolsmith-dev/replay","method":"ping"}`,
    ];
    const run = await runCli(["dev", "--no-watch", join(FIXTURES, "tc39", "main.ts")], {
      input: `${lines.join("\n")}\n`,
    });
    const replies = run.stdout.split("\n").filter(Boolean);
    expect(replies).toHaveLength(2);
    expect(replies[1]).toBe(`{"jsonrpc":"2.0","id":"toolsmith-dev/replay","result":{}}`);
  });

  it.each([
    [["dev"], "missing required argument 'entry'"],
    [["dev", "no/such/main.ts"], "there is no file no/such/main.ts"],
    [["dev", "--log", "x.log", "main.ts"], "--log goes with --wire"],
    [["dev", "--bogus", "main.ts"], "unknown option '--bogus'"],
  ])("toolsmith %j exits 2", async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it("--help names both dialects", async () => {
    const run = await runCli(["dev", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("TC39 and legacy decorators both work");
  });
});
