import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `startRedis` starts. */
export interface StartRedisOptions {
  /** `--requirepass`: clients must give it (the URL then carries it). */
  readonly password?: string;
  /** The append-only file, fsynced every second (Redis's default policy); default true. */
  readonly appendonly?: boolean;
  /** The server binary; default `REDIS_SERVER_PATH`, else `/usr/bin/redis-server` (Debian's), else `redis-server` on the PATH. */
  readonly binary?: string;
  /** How long to wait for "Ready to accept connections"; default 60 s. */
  readonly readyMs?: number;
  /** Serve TLS only (a self-signed certificate for 127.0.0.1, made with `openssl`): the URL is `rediss://`. */
  readonly tls?: boolean;
  /** More configuration, as redis-server's own options (e.g. `["--maxmemory", "64mb"]`), after the helper's. */
  readonly args?: readonly string[];
}

/** A redis-server of one's own, on 127.0.0.1, in a temporary folder of its own. */
export interface RedisServer {
  /** `redis://[:password@]127.0.0.1:<port>` (`rediss://` with `tls`). */
  readonly url: string;
  /** With `tls`: the server's certificate (PEM), for a client to trust. */
  readonly ca: string | undefined;
  readonly port: number;
  /** Its working folder (the append-only file lives there). */
  readonly dir: string;
  /** The running process's pid, or undefined while it is stopped. */
  readonly pid: number | undefined;
  /** Ask it to shut down (SIGTERM: it writes its append-only file) and wait for its exit. */
  stop(): Promise<void>;
  /** SIGKILL, and wait for its exit (a crash: at most the last second of writes is lost). */
  kill(): Promise<void>;
  /** Start it again on the same port and folder (stopping it first if it runs); resolves once it is ready. */
  restart(): Promise<void>;
}

const READY = "Ready to accept connections";
const DEBIAN_BINARY = "/usr/bin/redis-server";

/**
 * `REDIS_SERVER_PATH` when set, else Debian's redis-server when installed, else `redis-server` on the PATH (where
 * `scripts/machine-ready.mjs`, the first step of `pnpm test`, found one).
 */
export function defaultRedisBinary(exists: (path: string) => boolean = existsSync): string {
  const chosen = process.env.REDIS_SERVER_PATH;
  if (chosen) return chosen;
  return exists(DEBIAN_BINARY) ? DEBIAN_BINARY : "redis-server";
}
/** Tries at another free port when one was taken between finding it and Redis binding it. */
const PORT_TRIES = 10;

// Every server this process started and has not seen exit, with its folder: none outlives the process.
const running = new Set<ChildProcess>();
const folders = new Set<string>();
let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const child of running) child.kill("SIGKILL");
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });
}

/** A self-signed certificate for 127.0.0.1 in `dir` (cert.pem, key.pem); its PEM. */
function selfSigned(dir: string): string {
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"].concat([
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      cert,
    ]),
    { stdio: "ignore" },
  );
  return readFileSync(cert, "utf8");
}

/** A port free on 127.0.0.1 right now (the kernel's pick; `--port 0` is not something Redis takes). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Spawn and wait for the ready line; "in-use" when the port was taken (the caller picks another or retries). */
function launch(
  binary: string,
  args: readonly string[],
  readyMs: number,
): Promise<{ child: ChildProcess } | { inUse: true }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args], { stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    child.once("exit", () => running.delete(child));
    let said = "";
    let done = false;
    const finish = (outcome: { child: ChildProcess } | { inUse: true } | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout?.off("data", hear);
      child.stderr?.off("data", hear);
      if (outcome instanceof Error) {
        child.kill("SIGKILL");
        reject(outcome);
      } else resolve(outcome);
    };
    const hear = (chunk: string) => {
      said += chunk;
      if (said.includes(READY)) finish({ child });
    };
    child.stdout?.setEncoding("utf8").on("data", hear);
    child.stderr?.setEncoding("utf8").on("data", hear);
    child.once("error", (error) => finish(new Error(`could not start ${binary}: ${error.message}`)));
    child.once("exit", (code, signal) => {
      if (/address already in use/i.test(said)) finish({ inUse: true });
      else finish(new Error(`${binary} exited (${signal ?? code}) before it was ready:\n${said}`));
    });
    const timer = setTimeout(
      () => finish(new Error(`gave up after ${readyMs / 1000} s waiting for ${binary} to say "${READY}":\n${said}`)),
      readyMs,
    );
  });
}

/**
 * Start a redis-server of one's own on a free 127.0.0.1 port with a temporary folder; resolves once it said it is
 * ready. Stop it when done (a test's afterAll); any still running when this process exits is killed with it.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  hookExit();
  const binary = options.binary ?? defaultRedisBinary();
  const readyMs = options.readyMs ?? 60_000;
  const dir = mkdtempSync(join(tmpdir(), "toolsmith-redis-"));
  folders.add(dir);
  const ca = options.tls ? selfSigned(dir) : undefined;
  const argsFor = (port: number) => [
    ...(ca === undefined
      ? ["--port", String(port)]
      : [
          "--port",
          "0",
          "--tls-port",
          String(port),
          "--tls-auth-clients",
          "no",
          ...["cert", "key", "ca-cert"].flatMap((kind) => [
            `--tls-${kind}-file`,
            join(dir, kind === "key" ? "key.pem" : "cert.pem"),
          ]),
        ]),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--logfile",
    "",
    "--save",
    "",
    "--appendonly",
    options.appendonly === false ? "no" : "yes",
    "--appendfsync",
    "everysec",
    ...(options.password === undefined ? [] : ["--requirepass", options.password]),
    ...(options.args ?? []),
  ];

  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; child === undefined; attempt++) {
    if (attempt === PORT_TRIES) throw new Error(`no free port for redis-server after ${PORT_TRIES} tries`);
    port = await freePort();
    const outcome = await launch(binary, argsFor(port), readyMs);
    if ("child" in outcome) child = outcome.child;
  }

  const auth = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}@`;
  const server: RedisServer = {
    url: `${ca === undefined ? "redis" : "rediss"}://${auth}127.0.0.1:${port}`,
    ca,
    port,
    dir,
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    async stop() {
      if (!child) return;
      const exit = exitOf(child);
      child.kill("SIGTERM");
      await exit;
    },
    async kill() {
      if (!child) return;
      const exit = exitOf(child);
      child.kill("SIGKILL");
      await exit;
    },
    async restart() {
      await server.stop();
      // The same port: a socket of the old process may linger a moment, so retry while it is in use.
      for (let attempt = 0; ; attempt++) {
        const outcome = await launch(binary, argsFor(port), readyMs);
        if ("child" in outcome) {
          child = outcome.child;
          return;
        }
        if (attempt === 50) throw new Error(`port ${port} stayed in use: redis-server could not restart on it`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
  return server;
}
