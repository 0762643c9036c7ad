import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { endTracked, run } from "../../../scripts/child-processes.js";
import { BIN, copyFixture, REPO, runCli } from "./run-cli.test-util.js";

let project: ReturnType<typeof copyFixture>;
beforeEach(() => {
  project = copyFixture("project");
});
// The processes a test started end before their folder goes, whatever happened.
afterEach(async () => {
  await endTracked();
  project.remove();
});

/** Run a node script in the project to its end; resolves with its exit code and output. */
async function node(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await run(process.execPath, args, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  return { code, output: `${stdout}${stderr}` };
}

describe("toolsmith add", () => {
  it("adds a tool, a resource and a prompt to the class, with tests beside the existing one, that compile and pass", async () => {
    const cwd = project.dir;
    const tool = await runCli(["add", "tool", "shout"], { cwd });
    expect(tool).toMatchObject({ code: 0, stderr: "" });
    expect(tool.stdout).toBe("added tool shout to Shop in src/shop.ts\nadded its test test/shout.test.ts\n");
    expect((await runCli(["add", "resource", "menu"], { cwd })).code).toBe(0);
    expect((await runCli(["add", "prompt", "ask-me"], { cwd })).code).toBe(0);

    const source = readFileSync(join(cwd, "src/shop.ts"), "utf8");
    expect(source).toContain('import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";');
    expect(source).toContain("  shout({ text }: { text: string }) {");
    expect(source).toContain(
      '  @resource("shop://menu", { description: "TODO: what menu holds", mimeType: "text/plain" })',
    );
    expect(source).toContain('  @prompt({ name: "ask-me", description: "TODO: what ask-me asks for"');
    expect(source.trimEnd().endsWith("  }\n}")).toBe(true);
    expect(readFileSync(join(cwd, "test/shout.test.ts"), "utf8")).toContain('import { Shop } from "../src/shop.js";');

    const tsc = await node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "."], cwd);
    expect(tsc.output).toBe("");
    const vitest = await node([join(cwd, "node_modules/vitest/vitest.mjs"), "run"], cwd);
    expect(vitest.output).toContain("Tests  7 passed (7)");
    expect(vitest.code).toBe(0);

    // And a host sees them: the server run from source by `toolsmith dev`.
    const call = await runCli(["call", "node", BIN, "dev", "src/main.ts", "shout", "text=hi"], { cwd });
    expect([call.code, call.stdout]).toEqual([0, "shout: hi\n"]);
  });

  it("takes the class file from --file, and puts the test beside it when no test imports the class", async () => {
    const cwd = project.dir;
    writeFileSync(join(cwd, "test/shop.test.ts"), "export {};\n");
    const run = await runCli(["add", "--file", "src/shop.ts", "tool", "price"], { cwd });
    expect(run.stdout).toBe("added tool price to Shop in src/shop.ts\nadded its test src/price.test.ts\n");
    expect(readFileSync(join(cwd, "src/price.test.ts"), "utf8")).toContain('import { Shop } from "./shop.js";');
  });

  it.each([
    [["add", "widget", "x"], 2, 'add takes tool, resource, prompt; got "widget"'],
    [["add", "tool", "has space"], 2, 'a tool name is 1–64 of A-Z a-z 0-9 _ . -; got "has space"'],
    [["add", "tool"], 2, "missing required argument 'name'"],
    [["add", "--file", "src/nope.ts", "tool", "x"], 2, "there is no file src/nope.ts"],
    [["add", "tool", "count"], 1, "class Shop already has a method count"],
    [["add", "--file", "src/main.ts", "tool", "x"], 1, "src/main.ts declares no class that extends McpServer"],
  ])("toolsmith %j exits %i", async (args, code, message) => {
    const run = await runCli(args as string[], { cwd: project.dir });
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });

  it("says what to do when there is no server class or more than one", async () => {
    const none = await runCli(["add", "tool", "x", "--dir", join(project.dir, "test")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no class extends McpServer under");
    writeFileSync(
      join(project.dir, "src/other.ts"),
      'import { McpServer } from "@toolsmith/decorators";\nexport class Other extends McpServer {}\n',
    );
    const two = await runCli(["add", "tool", "x"], { cwd: project.dir });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("more than one server class (src/other.ts, src/shop.ts); say which with --file");
  });
});
