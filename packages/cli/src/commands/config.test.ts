import { describe, expect, it } from "vitest";
import { FIXTURES, runCli } from "../run-cli.test-util.js";

const stdio = ["--name", "notes", "--command", "node", "--args", "/srv/notes/dist/main.js --verbose"];

describe("toolsmith config", () => {
  it("Claude Desktop: mcpServers in claude_desktop_config.json", async () => {
    const run = await runCli(["config", "claude-desktop", ...stdio, "--env", "TOKEN=abc"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      mcpServers: { notes: { command: "node", args: ["/srv/notes/dist/main.js", "--verbose"], env: { TOKEN: "abc" } } },
    });
    expect(run.stderr).toMatch(/^# add to claude_desktop_config\.json/);
  });

  it("Claude Desktop over HTTP: the mcp-remote bridge, as a generated project's README has it", async () => {
    const local = await runCli(["config", "claude-desktop", "--name", "notes", "--url", "http://127.0.0.1:3000/mcp"]);
    expect(local.code).toBe(0);
    expect(JSON.parse(local.stdout)).toEqual({
      mcpServers: { notes: { command: "npx", args: ["-y", "mcp-remote", "http://127.0.0.1:3000/mcp"] } },
    });
    expect(local.stderr).toMatch(/^# add to claude_desktop_config\.json.*mcp-remote.*Settings → Connectors/);
    // mcp-remote takes plain HTTP only on loopback, unless told the network is trusted.
    const lan = await runCli(["config", "claude-desktop", "--name", "notes", "--url", "http://10.0.0.5:3000/mcp"]);
    expect(JSON.parse(lan.stdout).mcpServers.notes.args).toEqual([
      "-y",
      "mcp-remote",
      "http://10.0.0.5:3000/mcp",
      "--allow-http",
    ]);
    const tls = await runCli(["config", "claude-desktop", "--name", "notes", "--url", "https://example.com/mcp"]);
    expect(JSON.parse(tls.stdout).mcpServers.notes.args).toEqual(["-y", "mcp-remote", "https://example.com/mcp"]);
  });

  it("Claude Code: the claude mcp add command, stdio or HTTP", async () => {
    const local = await runCli(["config", "claude-code", ...stdio]);
    expect(local.stdout).toBe("claude mcp add notes -- node /srv/notes/dist/main.js --verbose\n");
    const remote = await runCli(["config", "claude-code", "--name", "notes", "--url", "https://example.com/mcp"]);
    expect(remote.stdout).toBe("claude mcp add --transport http notes https://example.com/mcp\n");
  });

  it("VS Code: servers in .vscode/mcp.json, with a type", async () => {
    const local = await runCli(["config", "vscode", "--name", "notes", "--command", "npx -y notes-mcp"]);
    expect(JSON.parse(local.stdout)).toEqual({
      servers: { notes: { type: "stdio", command: "npx", args: ["-y", "notes-mcp"] } },
    });
    const remote = await runCli(["config", "vscode", "--name", "notes", "--url", "http://127.0.0.1:3000/mcp"]);
    expect(JSON.parse(remote.stdout)).toEqual({
      servers: { notes: { type: "http", url: "http://127.0.0.1:3000/mcp" } },
    });
  });

  it("Cursor: mcpServers in .cursor/mcp.json, a url for HTTP", async () => {
    const local = await runCli(["config", "cursor", "--name", "notes", "--command", "node", "--args", '["a b.js"]']);
    expect(JSON.parse(local.stdout)).toEqual({ mcpServers: { notes: { command: "node", args: ["a b.js"] } } });
    const remote = await runCli(["config", "cursor", "--name", "notes", "--url", "http://127.0.0.1:3000/mcp"]);
    expect(JSON.parse(remote.stdout)).toEqual({ mcpServers: { notes: { url: "http://127.0.0.1:3000/mcp" } } });
  });

  it("takes the name and the entry from package.json when not given", async () => {
    const run = await runCli(["config", "cursor"], { cwd: `${FIXTURES}project` });
    expect(JSON.parse(run.stdout)).toEqual({
      mcpServers: { "shop-server": { command: "node", args: [`${FIXTURES}project/dist/main.js`] } },
    });
  });

  it.each([
    [
      ["config", "zed", "--name", "x", "--command", "node"],
      'the host is one of claude-desktop, claude-code, vscode, cursor; got "zed"',
    ],
    [["config", "cursor", "--command", "node"], "say the server's name with --name"],
    [["config", "cursor", "--name", "x"], "say how to start the server with --command"],
    [["config", "cursor", "--name", "x", "--url", "ftp://x"], '--url is an http(s) URL; got "ftp://x"'],
    [
      ["config", "cursor", "--name", "x", "--url", "http://x", "--command", "node"],
      "--url is for HTTP; it takes no --command",
    ],
    [
      ["config", "claude-desktop", "--name", "x", "--url", "http://x", "--env", "TOKEN=1"],
      "--url is for HTTP; it takes no --command, --args or --env (the server's environment is its own)",
    ],
    [
      ["config", "cursor", "--name", "x", "--command", "node", "--args", "[1]"],
      "--args is a JSON array of strings or words",
    ],
    [["config", "cursor", "--name", "x", "--command", "node", "--env", "NOPE"], '--env is KEY=VALUE; got "NOPE"'],
    [["config"], "missing required argument 'host'"],
  ])("toolsmith %j exits 2", async (args, message) => {
    const run = await runCli(args, { cwd: "/" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  });

  it("--help lists the hosts", async () => {
    const run = await runCli(["config", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("claude-desktop | claude-code | vscode | cursor");
  });
});
