import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, CHATTY, runCli, startHttp } from "./run-cli.test-util.js";

// Build first. toolsmith call shows the server's log messages (notifications/message) on stderr, from --log-level
// up: asked for with logging/setLevel in the handshake era, with the _meta log level on each 2026-07-28 request.

const INFO = '[info] chatty: started {"step":1}\n';
const WARNING = "[warning] chatty: almost out of paper\n";
const ERROR = "[error] disk: the disk is full\n";
const DEBUG = "[debug] chatty: the debug detail\n";

let http: Awaited<ReturnType<typeof startHttp>>;
beforeAll(async () => {
  http = await startHttp(CHATTY);
});
afterAll(() => http.stop());

describe.each(["legacy", "modern"])("--era %s", (era) => {
  const servers = { stdio: () => ["node", CHATTY], http: () => [http.url] };
  describe.each(Object.keys(servers) as (keyof typeof servers)[])("over %s", (transport) => {
    const call = (...options: string[]) =>
      runCli(["call", "--era", era, ...options, ...servers[transport](), "chatty"]);

    it("shows info and above by default, in order, with the logger's name; the result stays alone on stdout", async () => {
      const run = await call();
      expect([run.code, run.stdout]).toEqual([0, "chatty done\n"]);
      expect(run.stderr).toBe(`${INFO}${WARNING}${ERROR}`);
    });

    it("--log-level debug shows everything; error only the error; off nothing", async () => {
      expect((await call("--log-level", "debug")).stderr).toBe(`${DEBUG}${INFO}${WARNING}${ERROR}`);
      expect((await call("--log-level", "error")).stderr).toBe(ERROR);
      const off = await call("--log-level", "off");
      expect([off.code, off.stdout, off.stderr]).toEqual([0, "chatty done\n", ""]);
    });
  });
});

describe("a server's log messages cannot drive the terminal", () => {
  // Escapes, CR and newlines shown escaped, so a log line can neither clear the screen, retitle the window, recolour
  // nor fake a line of its own; the same whether stderr is a terminal or a file read later.
  const SAFE =
    "[warning] \\u001b]0;owned\\u0007net: \\u001b[2J\\u001b[Hcleared\\r\\u001b[2K[info] all good\\nfaked line\n" +
    '[info] hostile: \\u009b31mC1 {"k":"\\u202eright-to-left"}\n';
  it.each(["legacy", "modern"])("--era %s, over stdio and HTTP", async (era) => {
    for (const server of [["node", CHATTY], [http.url]]) {
      const run = await runCli(["call", "--era", era, ...server, "hostile"]);
      expect([run.code, run.stdout, run.stderr]).toEqual([0, "hostile done\n", SAFE]);
    }
  });
});

describe("what goes on the wire (a stdio server behind toolsmith wire)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "toolsmith-logs-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("handshake era: logging/setLevel once, with the level asked for", async () => {
    const log = join(dir, "legacy.log");
    const run = await runCli(
      ["call", "--era", "legacy", "--log-level", "warning", "node", BIN, "wire", "--log", log].concat([
        "node",
        CHATTY,
        "--",
        "chatty",
      ]),
    );
    expect(run.stderr).toBe(`${WARNING}${ERROR}`);
    const sent = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.includes(" → "));
    expect(sent.filter((line) => line.includes("logging/setLevel"))).toHaveLength(1);
    expect(sent.find((line) => line.includes("logging/setLevel"))).toContain('"params":{"level":"warning"}');
  });

  it('2026-07-28: "io.modelcontextprotocol/logLevel" in the _meta of every request after discovery', async () => {
    const log = join(dir, "modern.log");
    const run = await runCli(
      ["call", "--era", "modern", "--log-level", "notice", "node", BIN, "wire", "--log", log].concat([
        "node",
        CHATTY,
        "--",
        "chatty",
      ]),
    );
    expect(run.stderr).toBe(`${WARNING}${ERROR}`);
    const requests = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => / → \S+ \S+\/\S+ #/.test(line) && !line.includes("server/discover"));
    // tools/list (to read the tool's schema) and tools/call at least.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const line of requests) expect(line).toContain('"io.modelcontextprotocol/logLevel":"notice"');
    expect(requests.some((line) => line.includes("logging/setLevel"))).toBe(false);
  });

  it("a level that is not one is exit 2, naming the levels", async () => {
    const run = await runCli(["call", "--log-level", "loud", "node", CHATTY, "chatty"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("debug, info, notice, warning, error, critical, alert, emergency, off");
  });
});
