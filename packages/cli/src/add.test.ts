import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { endTracked, run } from "../../../scripts/child-processes.js";
import { readServerClass } from "./class-file.js";
import { BIN, copyFixture, REPO, runCli } from "./run-cli.test-util.js";

const TRACKER = join(REPO, "examples/issue-tracker/src/issue-tracker.ts");

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
    expect((await runCli(["add", "tool", "reopen_issue"], { cwd })).code).toBe(0);

    const source = readFileSync(join(cwd, "src/shop.ts"), "utf8");
    expect(source).toContain('import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";');
    // The arguments' schema is a constant, and the method's parameter is typed from it.
    expect(source).toContain('const Shout = {\n  text: z.string().describe("TODO: what the model passes"),\n};');
    expect(source).toContain("    input: Shout,\n  })\n  shout({ text }: Args<typeof Shout>) {");
    expect(source).toContain('  @resource("shop://menu", {\n    description: "TODO: what menu holds",');
    expect(source).toContain('  @prompt({\n    name: "ask-me",\n    description: "TODO: what ask-me asks for",');
    expect(source).toContain("  askMe({ topic }: Args<typeof AskMe>) {");
    // A name that is a method name already is the method's name, and needs no `name:`; its schema is PascalCase.
    expect(source).toContain('  @tool({\n    description: "TODO: what reopen_issue does, for the model",');
    expect(source).toContain("  reopen_issue({ text }: Args<typeof ReopenIssue>) {");
    expect(source.trimEnd().endsWith("  }\n}")).toBe(true);
    const test = readFileSync(join(cwd, "test/shout.test.ts"), "utf8");
    expect(test).toContain('import { Shop } from "../src/shop.js";');
    // Both eras, in the newest revision of each that the project's core speaks: no revision date of its own.
    expect(test).toContain("const ERAS = [LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION];");
    expect(test).not.toMatch(/\d{4}-\d{2}-\d{2}/);

    const tsc = await node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "."], cwd);
    expect(tsc.output).toBe("");
    const vitest = await node([join(cwd, "node_modules/vitest/vitest.mjs"), "run"], cwd);
    expect(vitest.output).toContain("Tests  9 passed (9)");
    expect(vitest.code).toBe(0);

    // And a host sees them: the server run from source by `toolsmith dev`.
    const call = await runCli(["call", "node", BIN, "dev", "src/main.ts", "shout", "text=hi"], { cwd });
    expect([call.code, call.stdout]).toEqual([0, "shout: hi\n"]);
  });

  it("gives a name McpServer keeps for itself (name, toServer, …) a method of another name, published as asked", async () => {
    const cwd = project.dir;
    expect((await runCli(["add", "tool", "name"], { cwd })).code).toBe(0);
    expect((await runCli(["add", "tool", "to-server"], { cwd })).code).toBe(0);
    const source = readFileSync(join(cwd, "src/shop.ts"), "utf8");
    expect(source).toContain('  @tool({\n    name: "name",');
    expect(source).toContain("  nameTool({ text }: Args<typeof NameTool>) {");
    expect(source).toContain('  @tool({\n    name: "to-server",');
    expect(source).toContain("  toServerTool({ text }: Args<typeof ToServerTool>) {");
    const tsc = await node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "."], cwd);
    expect(tsc.output).toBe("");
    const call = await runCli(["call", "node", BIN, "dev", "src/main.ts", "name", "text=hi"], { cwd });
    expect([call.code, call.stdout]).toEqual([0, "name: hi\n"]);
  });

  it("reads the issue tracker's class from its syntax tree: keys in its bodies and decorators are not members", async () => {
    const cwd = project.dir;
    const file = "src/issue-tracker.ts";
    copyFileSync(TRACKER, join(cwd, file));
    // `list:` is a decorator's option in the class, `labels` only a key and a local: neither is a member.
    for (const [kind, name] of [
      ["resource", "labels"],
      ["tool", "list"],
      ["tool", "reopen_issue"],
    ] as const) {
      const run = await runCli(["add", "--file", file, kind, name], { cwd });
      expect([run.code, run.stderr]).toEqual([0, ""]);
    }
    const source = readFileSync(join(cwd, file), "utf8");
    expect(source).toContain('  @resource("issues://labels", {');
    expect(source).toContain("  reopen_issue({ text }: Args<typeof ReopenIssue>) {");
    expect([...(readServerClass(file, source)?.members ?? [])]).toEqual(
      expect.arrayContaining(["labels", "list", "reopen_issue", "create_issue"]),
    );
    const again = await runCli(["add", "--file", file, "tool", "create_issue"], { cwd });
    expect([again.code, again.stderr]).toEqual([1, "error: class IssueTracker already has a member create_issue\n"]);
  });

  it("takes the class file from --file, and puts the test beside it when no test imports the class", async () => {
    const cwd = project.dir;
    writeFileSync(join(cwd, "test/shop.test.ts"), "export {};\n");
    const run = await runCli(["add", "--file", "src/shop.ts", "tool", "price"], { cwd });
    expect(run.stdout).toBe("added tool price to Shop in src/shop.ts\nadded its test src/price.test.ts\n");
    expect(readFileSync(join(cwd, "src/price.test.ts"), "utf8")).toContain('import { Shop } from "./shop.js";');
  });

  it("adds to an empty default-exported class, importing it as the default in a test that compiles", async () => {
    const cwd = project.dir;
    writeFileSync(
      join(cwd, "src/shop.ts"),
      'import { McpServer } from "@toolsmith/decorators";\n\nexport default class extends McpServer {}\n',
    );
    writeFileSync(join(cwd, "src/main.ts"), 'import Shop from "./shop.js";\n\nnew Shop();\n');
    writeFileSync(join(cwd, "test/shop.test.ts"), 'import Shop from "../src/shop.js";\n\nnew Shop();\n');
    const added = await runCli(["add", "tool", "price"], { cwd });
    expect([added.code, added.stderr]).toEqual([0, ""]);
    expect(added.stdout).toContain("added tool price to the default export in src/shop.ts\n");
    // No blank line after the `{` of a class that was empty, as biome formats it.
    expect(readFileSync(join(cwd, "src/shop.ts"), "utf8")).toContain(
      "export default class extends McpServer {\n  @tool({\n",
    );
    expect(readFileSync(join(cwd, "test/price.test.ts"), "utf8")).toContain('import Server from "../src/shop.js";');
    const tsc = await node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "."], cwd);
    expect(tsc.output).toBe("");
  });

  it("refuses a class its test could not import, leaving the file as it was", async () => {
    const cwd = project.dir;
    const source =
      'import { McpServer } from "@toolsmith/decorators";\n\nclass Shop extends McpServer {}\nnew Shop();\n';
    writeFileSync(join(cwd, "src/shop.ts"), source);
    const run = await runCli(["add", "tool", "price"], { cwd });
    expect([run.code, run.stderr]).toEqual([
      1,
      "error: class Shop is not exported from src/shop.ts: export it, so that its test can import it\n",
    ]);
    expect(readFileSync(join(cwd, "src/shop.ts"), "utf8")).toBe(source);
  });

  it.each([
    [["add", "widget", "x"], 2, 'add takes tool, resource, prompt; got "widget"'],
    [
      ["add", "tool", "has space"],
      2,
      'a tool name is 1–64 of A-Z a-z 0-9 _ . -, with a letter or digit; got "has space"',
    ],
    [["add", "tool", "___"], 2, 'a tool name is 1–64 of A-Z a-z 0-9 _ . -, with a letter or digit; got "___"'],
    [["add", "tool"], 2, "missing required argument 'name'"],
    [["add", "--file", "src/nope.ts", "tool", "x"], 2, "there is no file src/nope.ts"],
    [["add", "tool", "count"], 1, "class Shop already has a member count"],
    [["add", "prompt", "stock"], 1, "class Shop already has a member stock"],
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
