import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTES, OFFICIAL, runCli, startHttp } from "./run-cli.test-util.js";

describe.each(["legacy", "modern"])("toolsmith call over stdio, --era %s", (era) => {
  it("prints structured content once, as JSON", async () => {
    const run = await runCli(["call", "--era", era, "node", NOTES, "add", "title=Milk", "body=2 litres"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: "3", count: 3 });
  });

  it("reads each value as the input schema says: text stays text, arrays are JSON, --args merges under pairs", async () => {
    const args = ["call", "--era", era, "--json", "--args", '{"title":"x","tags":["a"]}', "node", NOTES, "add"];
    const run = await runCli([...args, "title=42", 'tags=["errands","home"]', "body=true"]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: "3", count: 3 });
  });

  it("prints a tool's text, and exits 1 with the text when it returns isError", async () => {
    const ok = await runCli(["call", "--era", era, "node", NOTES, "remove", "id=1"]);
    expect([ok.code, ok.stdout]).toEqual([0, "Deleted note 1\n"]);
    const failed = await runCli(["call", "--era", era, "node", NOTES, "remove", "id=9"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("There is no note 9; read notes://all for the ids\n");
    expect(failed.stderr).toBe("error: remove returned isError\n");
  });

  it("takes -- between the server's words and the tool", async () => {
    const run = await runCli(["call", "--era", era, "node", NOTES, "--", "search", "query=wire"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ matches: [{ id: "2", title: "Wiretap" }] });
  });
});

describe("toolsmith call over HTTP", () => {
  let server: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    server = await startHttp(NOTES);
  });
  afterAll(() => server.stop());

  it.each(["legacy", "modern"])("--era %s", async (era) => {
    const run = await runCli(["call", "--era", era, "--json", server.url, "search", "query=groceries"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({ matches: [{ id: "1", title: "Groceries" }] });
  });
});

describe("toolsmith call, a server not built with Toolsmith", () => {
  it("turns a=2 b=3 into numbers because the schema says so", async () => {
    const run = await runCli(["call", "node", OFFICIAL, "add", "a=2", "b=3"]);
    expect([run.code, run.stdout]).toEqual([0, "5\n"]);
  });
});

describe("toolsmith call, errors", () => {
  it.each([
    [["call", "node", NOTES], 2, "say which tool to call after the server"],
    [["call", "add"], 2, "say which server before the tool"],
    [["call", "http://127.0.0.1:1/mcp"], 2, "say which tool to call"],
    [["call", "node", NOTES, "--", "add", "oops"], 2, 'after the tool come key=value pairs; "oops" is not one'],
    [["call", "--args", "{nope", "node", NOTES, "add"], 2, "--args is not JSON"],
    [["call", "--args", "[1]", "node", NOTES, "add"], 2, "--args is a JSON object"],
    [["call", "node", OFFICIAL, "add", "a=two", "b=3"], 2, 'a is a number; got "two"'],
    [["call", "node", NOTES, "nosuch"], 1, 'the server has no tool "nosuch" (its tools: add, remove, search)'],
    [["call", "node", NOTES, "add", "title=x"], 1, "body"],
    [["call", "no-such-command-anywhere", "add"], 3, "could not connect"],
  ])("toolsmith %j exits %i", async (args, code, message) => {
    const run = await runCli(args as string[]);
    expect(run.code).toBe(code);
    expect(`${run.stdout}${run.stderr}`).toContain(message);
  });

  it("--help shows how the words split", async () => {
    const run = await runCli(["call", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("The tool is the last word that is not key=value");
  });
});
