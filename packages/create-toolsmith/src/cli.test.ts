import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanEnv, sh } from "./process.test-util.js";

// The built bin as a process, with no TTY: plain output, no questions.
const temp = mkdtempSync(join(tmpdir(), "create-toolsmith-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const bin = (...args: string[]) => sh(process.execPath, [BIN, ...args], temp);

describe("create-toolsmith", () => {
  it("prints its options with --help", async () => {
    const { code, stdout } = await bin("--help");
    expect(code).toBe(0);
    for (const flag of [
      "--transport",
      "--dialect",
      "--no-tests",
      "--redis",
      "--otel",
      "--auth",
      "--yes",
      "--force",
      "--from",
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it("scaffolds with plain output when not on a terminal", async () => {
    const { code, stdout, stderr } = await bin("plain-server", "--transport", "http");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe(
      [
        "Not a terminal: taking the defaults for anything not given as a flag.",
        "Writing plain-server (runtime node, transport http, dialect tc39, tests yes, redis no, otel no, auth none)",
        "Wrote 11 files.",
        "Next:",
        "  cd plain-server",
        "  npm install",
        "  npm run build",
        "  npm test",
        "  npm start   # then, in another terminal:",
        "  npm run inspect",
        "",
      ].join("\n"),
    );
    expect(stdout).not.toContain("\u001b[");
  });

  it("refuses an invalid package name, saying why", async () => {
    const { code, stderr } = await bin("Bad Name", "--yes");
    expect(code).toBe(1);
    expect(stderr).toBe(
      'create-toolsmith: "Bad Name" is not a valid npm package name: name can only contain URL-friendly characters; name can no longer contain capital letters.\n',
    );
    expect(readdirSync(temp)).not.toContain("Bad Name");
  });

  it("refuses a non-empty directory unless --force", async () => {
    mkdirSync(join(temp, "taken"));
    writeFileSync(join(temp, "taken", "keep.txt"), "");
    const refused = await bin("taken", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty (1 entry): choose another directory, or pass --force");
    expect((await bin("taken", "--yes", "--force")).code).toBe(0);
    expect(readdirSync(join(temp, "taken"))).toContain("keep.txt");
  });

  it("refuses --redis for a server that serves only stdio, with exit code 2", async () => {
    expect(await bin("stdio-redis", "--yes", "--redis")).toEqual({
      code: 2,
      stdout: "",
      stderr: "create-toolsmith: --redis is for a server that serves HTTP: give --transport http or both.\n",
    });
  });

  it("answers a bad flag with exit code 2", async () => {
    expect(await bin("x", "--transport", "sse")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'create-toolsmith: --transport must be one of stdio, http, both (got "sse")\nRun with --help for the options.\n',
    });
  });

  it("says when --from is not a built checkout", async () => {
    const { code, stderr } = await bin("from-nowhere", "--yes", "--from", temp);
    expect(code).toBe(1);
    expect(stderr).toContain("is not a Toolsmith checkout");
  });
});

// A terminal for the prompts: python3's pty module (Node has none), waiting for each question before answering.
const PTY = `
import fcntl, json, os, pty, re, select, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:3])
out = b""
def until(text):
    global out
    end = time.time() + 240  # minutes, as a loaded machine is slow; within the 5 the test gives python
    while text.encode() not in re.sub(rb"\\x1b\\[[0-9;?]*[A-Za-z]", b"", out):
        if time.time() > end: sys.exit("gave up after 240 s waiting for " + text + ": " + out.decode(errors="replace"))
        if select.select([fd], [], [], 0.1)[0]:
            try: out += os.read(fd, 4096)
            except OSError: break
for prompt, keys in json.loads(sys.argv[3]):
    until(prompt)
    os.write(fd, keys.encode())
until("Next:")
os.waitpid(pid, 0)
`;

// Each prompt, and the keys that answer it: Enter takes the first choice, down arrow the next one.
const DOWN = "\u001b[B";
const steps = (...pairs: [prompt: string, keys: string][]) => JSON.stringify(pairs);

describe("create-toolsmith on a terminal", () => {
  it("asks for the name (again, while npm would refuse it), the runtime, the transport, the dialect, the tests, Redis, tracing and sign-in", async () => {
    const dir = join(temp, "interactive");
    mkdirSync(dir);
    const answers = steps(
      ["Project name", "Bad Name\r"],
      ["capital letters", `${"\u007f".repeat(8)}pty-server\r`],
      ["Runtime", "\r"],
      ["Transport", `${DOWN}\r`],
      ["Decorator dialect", `${DOWN}\r`],
      ["test setup", "n\r"],
      ["Redis", "y\r"],
      ["OpenTelemetry", "y\r"],
      ["Sign-in", `${DOWN}\r`],
    );
    const { code, stderr } = await sh("python3", ["-c", PTY, process.execPath, BIN, answers], dir, cleanEnv());
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const pkg = JSON.parse(readFileSync(join(dir, "pty-server/package.json"), "utf8"));
    expect(pkg.name).toBe("pty-server");
    expect(Object.keys(pkg.dependencies)).toContain("@toolsmith/transport-http");
    expect(Object.keys(pkg.dependencies)).not.toContain("@toolsmith/transport-stdio");
    expect(pkg.devDependencies).not.toHaveProperty("vitest");
    expect(Object.keys(pkg.dependencies)).toEqual(
      expect.arrayContaining(["@toolsmith/redis", "@toolsmith/otel", "@toolsmith/auth"]),
    );
    expect(readFileSync(join(dir, "pty-server/tsconfig.json"), "utf8")).toContain('"experimentalDecorators": true');
    expect(readFileSync(join(dir, "pty-server/src/sign-in.ts"), "utf8")).toContain("jwtVerifier");
  });

  it("asks a Worker nothing about the transport (HTTP), Redis, tracing or sign-in", async () => {
    const dir = join(temp, "interactive-worker");
    mkdirSync(dir);
    const answers = steps(
      ["Project name", "pty-worker\r"],
      ["Runtime", `${DOWN}${DOWN}${DOWN}\r`],
      ["Decorator dialect", "\r"],
      ["test setup", "\r"],
    );
    const { code, stderr } = await sh("python3", ["-c", PTY, process.execPath, BIN, answers], dir, cleanEnv());
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const pkg = JSON.parse(readFileSync(join(dir, "pty-worker/package.json"), "utf8"));
    expect(Object.keys(pkg.dependencies)).toEqual([
      "@toolsmith/core",
      "@toolsmith/decorators",
      "@toolsmith/transport-http",
      "zod",
    ]);
    expect(pkg.devDependencies).toHaveProperty("wrangler");
    expect(readdirSync(join(dir, "pty-worker/src")).sort()).toEqual(["server.test.ts", "server.ts", "worker.ts"]);
  });
});
