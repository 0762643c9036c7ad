import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTES, OFFICIAL, runCli, startHttp } from "./run-cli.test-util.js";

describe.each([
  ["legacy", "2025-11-25", "handshake era"],
  ["modern", "2026-07-28", "stateless era"],
  ["auto", "2026-07-28", "stateless era"],
])("toolsmith list over stdio, --era %s", (era, version, label) => {
  it("prints each tool with its description and arguments, then resources, templates and prompts", async () => {
    const run = await runCli(["list", "--era", era, "node", NOTES]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe(`notes 0.1.0 · ${version} (${label}) · stdio`);
    expect(run.stdout).toContain("Tools (3)\n  add (Add a note)\n      Store a note");
    expect(lines).toContain("      title: string");
    expect(lines).toContain("      tags?: string[] = []");
    expect(run.stdout).toContain("Resources (4)\n  notes://all all  text/plain · Every note's id and title");
    expect(run.stdout).toContain("Resource templates (1)\n  notes://{id}  One note.");
    expect(run.stdout).toContain("Prompts (2)\n  summarise  Ask for a summary");
    expect(lines).toContain("      style?: string  brief (default) or detailed");
  });

  it("--json prints the listing for scripts", async () => {
    const run = await runCli(["list", "--json", "--era", era, "node", NOTES]);
    expect(run.code).toBe(0);
    const listing = JSON.parse(run.stdout);
    expect(listing.server).toMatchObject({ name: "notes", protocolVersion: version });
    expect(listing.tools.map((t: { name: string }) => t.name)).toEqual(["add", "remove", "search"]);
    expect(listing.resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "notes://{id}" })]);
    expect(listing.prompts).toHaveLength(2);
  });
});

describe("toolsmith list over HTTP", () => {
  let server: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    server = await startHttp(NOTES);
  });
  afterAll(() => server.stop());

  it.each([
    ["legacy", "2025-11-25 (handshake era)"],
    ["modern", "2026-07-28 (stateless era)"],
  ])("--era %s", async (era, spoken) => {
    const run = await runCli(["list", "--era", era, server.url]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe(`notes 0.1.0 · ${spoken} · HTTP`);
    expect(run.stdout).toContain("  search\n      Find the notes");
  });
});

describe("toolsmith list, a server not built with Toolsmith", () => {
  it.each(["legacy", "auto"])("lists the official SDK's server (--era %s)", async (era) => {
    const run = await runCli(["list", "--era", era, "node", OFFICIAL]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("bench-official 1.0.0");
    expect(run.stdout).toContain("  add\n      Add two numbers\n      a: number\n      b: number\n");
  });

  it("takes the command as one quoted word too", async () => {
    const run = await runCli(["list", `node '${OFFICIAL}'`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("bench-official");
  });
});

describe("toolsmith list, errors", () => {
  it.each([
    [["list"], 2, "missing required argument 'server'"],
    [["list", "--era", "2025", "node", NOTES], 2, '--era is one of legacy, modern, auto; got "2025"'],
    [["list", "--timeout", "soon", "node", NOTES], 2, "--timeout is a whole number of milliseconds"],
    [["list", "--bogus", "node", NOTES], 2, "unknown option '--bogus'"],
    [["list", "http://127.0.0.1:1/mcp", "extra"], 2, "a URL takes no further words"],
    [["list", "no-such-command-anywhere"], 3, "could not connect to no-such-command-anywhere"],
    [["list", "--era", "legacy", "http://127.0.0.1:1/mcp"], 3, "could not connect to http://127.0.0.1:1/mcp"],
    [["list", "--era", "legacy", "node", "-e", "process.stderr.write('no config'); process.exit(4)"], 3, "no config"],
  ])("toolsmith %j exits %i", async (args, code, message) => {
    const run = await runCli(args as string[]);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  });

  it("--help says how, with the exit codes at the top level", async () => {
    const list = await runCli(["list", "--help"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("Usage: toolsmith list [options] <server...>");
    expect(list.stdout).toContain("--era <era>");
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Exit codes:\n  0  done");
    expect((await runCli(["nonsense"])).code).toBe(2);
  });
});
