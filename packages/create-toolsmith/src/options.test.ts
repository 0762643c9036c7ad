import { describe, expect, it } from "vitest";
import { className, packageNameProblems, projectFromTarget } from "./names.js";
import { parseCliArgs, UsageError } from "./options.js";

describe("parseCliArgs", () => {
  it("reads every answer as a flag", () => {
    expect(
      parseCliArgs(["my-server", "--transport", "both", "--dialect", "legacy", "--no-tests", "--yes", "--force"]),
    ).toEqual({
      target: "my-server",
      runtime: undefined,
      transport: "both",
      dialect: "legacy",
      tests: false,
      redis: undefined,
      otel: undefined,
      auth: undefined,
      yes: true,
      force: true,
      from: undefined,
      help: false,
    });
    expect(parseCliArgs(["--from", "../toolsmith", "-t", "http", "-d", "tc39"])).toMatchObject({
      target: undefined,
      transport: "http",
      dialect: "tc39",
      tests: undefined,
      from: "../toolsmith",
    });
    expect(parseCliArgs(["-t", "http", "--redis", "--otel"])).toMatchObject({ redis: true, otel: true });
    expect(parseCliArgs(["--no-redis", "--no-otel"])).toMatchObject({ redis: false, otel: false });
    expect(parseCliArgs(["-t", "both", "--auth", "verify"])).toMatchObject({ auth: "verify" });
    expect(parseCliArgs(["--auth", "proxy"])).toMatchObject({ auth: "proxy" });
    expect(parseCliArgs(["-t", "stdio", "--auth", "none"])).toMatchObject({ auth: "none" });
  });

  it("says what is wrong with a bad flag", () => {
    expect(() => parseCliArgs(["--transport", "sse"])).toThrow(
      new UsageError('--transport must be one of stdio, http, both (got "sse")'),
    );
    expect(() => parseCliArgs(["--dialect", "stage3"])).toThrow(/--dialect must be one of tc39, legacy/);
    expect(() => parseCliArgs(["--colour"])).toThrow(/^Unknown option '--colour'/);
    expect(() => parseCliArgs(["a", "b"])).toThrow(/one project directory at most/);
    expect(() => parseCliArgs(["--tests", "--no-tests"])).toThrow(/contradict/);
    expect(() => parseCliArgs(["--otel", "--no-otel"])).toThrow("--otel and --no-otel contradict each other");
    expect(() => parseCliArgs(["--transport", "stdio", "--redis"])).toThrow(
      new UsageError("--redis is for a server that serves HTTP: give --transport http or both"),
    );
    expect(() => parseCliArgs(["--auth", "oauth"])).toThrow(
      new UsageError('--auth must be one of none, verify, proxy (got "oauth")'),
    );
    expect(() => parseCliArgs(["--transport", "stdio", "--auth", "proxy"])).toThrow(
      new UsageError("--auth is for a server that serves HTTP: give --transport http or both"),
    );
  });

  it("reads the runtime, and refuses what it cannot serve", () => {
    expect(parseCliArgs(["--runtime", "bun", "-t", "both"])).toMatchObject({ runtime: "bun", transport: "both" });
    expect(parseCliArgs(["-r", "workers"])).toMatchObject({ runtime: "workers", transport: undefined });
    expect(parseCliArgs(["-r", "workers", "-t", "http"])).toMatchObject({ runtime: "workers", transport: "http" });
    expect(parseCliArgs(["-r", "node", "-t", "http", "--redis"])).toMatchObject({ runtime: "node", redis: true });
    expect(() => parseCliArgs(["--runtime", "edge"])).toThrow(
      new UsageError('--runtime must be one of node, bun, deno, workers (got "edge")'),
    );
    expect(() => parseCliArgs(["-r", "workers", "-t", "stdio"])).toThrow(
      new UsageError(
        "--runtime workers serves HTTP only (a Worker has no stdin): give --transport http or leave it out",
      ),
    );
    expect(() => parseCliArgs(["-r", "workers", "-t", "both"])).toThrow(/serves HTTP only/);
    expect(() => parseCliArgs(["-r", "deno", "-t", "http", "--redis"])).toThrow(
      new UsageError("--redis is set up for --runtime node only"),
    );
    expect(() => parseCliArgs(["-r", "bun", "--otel"])).toThrow("--otel is set up for --runtime node only");
    expect(() => parseCliArgs(["-r", "workers", "--auth", "verify"])).toThrow(
      "--auth is set up for --runtime node only",
    );
    expect(parseCliArgs(["-r", "bun", "--no-otel", "--auth", "none"])).toMatchObject({ otel: false, auth: "none" });
  });
});

describe("names", () => {
  it("takes the package name from the directory, or a scoped name as given", () => {
    expect(projectFromTarget("my-server", "/work")).toEqual({ dir: "/work/my-server", name: "my-server" });
    expect(projectFromTarget("./a/b-c", "/work")).toEqual({ dir: "/work/a/b-c", name: "b-c" });
    expect(projectFromTarget(".", "/work/here")).toEqual({ dir: "/work/here", name: "here" });
    expect(projectFromTarget("@me/tools", "/work")).toEqual({ dir: "/work/tools", name: "@me/tools" });
  });

  it("says why a name cannot be an npm package's", () => {
    expect(packageNameProblems("my-server")).toEqual([]);
    expect(packageNameProblems("@me/tools")).toEqual([]);
    expect(packageNameProblems("My-Server")).toEqual(["name can no longer contain capital letters"]);
    expect(packageNameProblems(".hidden")).toContain("name cannot start with a period");
    expect(packageNameProblems("node_modules")).toContain("node_modules is not a valid package name");
    expect(packageNameProblems("has space")).toContain("name can only contain URL-friendly characters");
    expect(packageNameProblems("http")).toEqual(["http is a core module name"]);
  });

  it("names the server class", () => {
    expect(className("my-server")).toBe("MyServer");
    expect(className("weather")).toBe("WeatherServer");
    expect(className("@me/git.tools")).toBe("GitToolsServer");
    expect(className("3d-printer")).toBe("Server3dPrinterServer");
  });
});
