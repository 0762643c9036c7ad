import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { WAIT_MS } from "../../../scripts/wait.js";

// The stdio fixture server as a child process, every stdout line checked: what stdio.test.ts holds Node to, and
// tests/runtimes holds Bun and Deno to. The fixture imports the built packages (dist): build first.
export const FIXTURE = fileURLToPath(new URL("../test/fixture-server.mjs", import.meta.url));
export const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));
export const MiB = 1024 * 1024;

export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
export const META_JSON = JSON.stringify(META);

export type Id = string | number | null;
export interface Response {
  jsonrpc: "2.0";
  id: Id;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
export interface SpawnOptions {
  /** How to run the fixture script; default `node <script>`. */
  spawnWith?: (script: string) => { command: string; args: string[] };
  env?: Record<string, string>;
  /** Keep every raw stdout line (off for tests that move hundreds of megabytes). */
  keepLines?: boolean;
  /** Shrink a reply before it is stored. */
  digest?: (response: Response) => Response;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Why a parsed stdout line is not a JSON-RPC 2.0 response object, or undefined when it is one.
export function responseProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "not a JSON object";
  if (value.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  if ("method" in value) return "a request or notification, not a response";
  if (!("id" in value)) return "no id";
  const { id } = value;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null)) return "bad id";
  const extra = Object.keys(value).filter((key) => !["jsonrpc", "id", "result", "error"].includes(key));
  if (extra.length > 0) return `unexpected keys ${extra.join(", ")}`;
  if ("result" in value === "error" in value) return "not exactly one of result and error";
  if ("result" in value) {
    if (!isObject(value.result)) return "result is not an object";
    if (id === null) return "a result with a null id";
    return undefined;
  }
  const { error } = value;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") return "bad error object";
  return undefined;
}

const preview = (line: string) => (line.length > 200 ? `${line.slice(0, 200)}… (${line.length} chars)` : line);

export const running: FixtureProcess[] = [];

/** The fixture server as a child process: raw lines in, replies collected by id, every stdout line checked. */
export class FixtureProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: Response[] = [];
  readonly rawLines: string[] = [];
  /** stdout lines that are not JSON-RPC responses: must stay empty. */
  readonly problems: string[] = [];
  lineCount = 0;
  stderr = "";
  exit: Exit | undefined;
  readonly #byId = new Map<string, Response[]>();
  readonly #waiters = new Set<() => boolean>();
  readonly #keepLines: boolean;
  readonly #digest: ((response: Response) => Response) | undefined;
  #partial: string[] = [];

  constructor(options: SpawnOptions = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    delete env.NODE_OPTIONS;
    if (!options.env?.MAX_LINE_BYTES) delete env.MAX_LINE_BYTES;
    this.#keepLines = options.keepLines ?? true;
    this.#digest = options.digest;
    const { command, args } = options.spawnWith?.(FIXTURE) ?? { command: process.execPath, args: [FIXTURE] };
    this.child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.#onStdout(chunk));
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
      this.#notify();
    });
    // EPIPE if the server went away: the test then fails on what it was waiting for.
    this.child.stdin.on("error", () => {});
    this.child.on("close", (code, signal) => {
      this.exit = { code, signal };
      this.#notify();
    });
    running.push(this);
  }

  /** Write messages (objects are JSON-encoded, strings go as they are), one per line, in one write. */
  send(...messages: (string | object)[]): void {
    this.child.stdin.write(messages.map((m) => `${typeof m === "string" ? m : JSON.stringify(m)}\n`).join(""));
  }

  end(): void {
    this.child.stdin.end();
  }

  repliesTo(id: Id): Response[] {
    return this.#byId.get(JSON.stringify(id)) ?? [];
  }

  reply(id: Id, timeoutMs = WAIT_MS): Promise<Response> {
    return this.until(() => this.repliesTo(id)[0], `the reply to id ${JSON.stringify(id)}`, timeoutMs);
  }

  exited(timeoutMs = WAIT_MS): Promise<Exit> {
    return this.until(() => this.exit, "the server to exit", timeoutMs);
  }

  /** Resolve with check()'s first defined value; reject on timeout or if the server exits first. */
  until<T>(check: () => T | undefined, what: string, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): boolean => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
          return true;
        }
        if (this.exit) {
          clearTimeout(timer);
          reject(new Error(`the server exited (${JSON.stringify(this.exit)}) before ${what}${this.#stderrTail()}`));
          return true;
        }
        return false;
      };
      if (settle()) return;
      this.#waiters.add(settle);
      timer = setTimeout(() => {
        this.#waiters.delete(settle);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${this.#stderrTail()}`));
      }, timeoutMs);
    });
  }

  #stderrTail(): string {
    return this.stderr ? `; stderr ends with:\n${this.stderr.slice(-2000)}` : "";
  }

  #notify(): void {
    for (const settle of [...this.#waiters]) if (settle()) this.#waiters.delete(settle);
  }

  #onStdout(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const line =
        this.#partial.length > 0 ? this.#partial.join("") + chunk.slice(start, end) : chunk.slice(start, end);
      this.#partial = [];
      this.#onLine(line);
      start = end + 1;
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
    this.#notify();
  }

  #onLine(line: string): void {
    this.lineCount++;
    if (this.#keepLines) this.rawLines.push(line);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.problems.push(`not JSON: ${preview(line)}`);
      return;
    }
    const problem = responseProblem(value);
    if (problem !== undefined) {
      this.problems.push(`${problem}: ${preview(line)}`);
      return;
    }
    const response = this.#digest ? this.#digest(value as Response) : (value as Response);
    this.replies.push(response);
    const key = JSON.stringify(response.id);
    const list = this.#byId.get(key);
    if (list) list.push(response);
    else this.#byId.set(key, [response]);
  }
}

export function statelessCall(id: Id, name: string, args?: Record<string, unknown>) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: META },
  };
}

export function handshakeCall(id: Id, name: string, args?: Record<string, unknown>) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, ...(args === undefined ? {} : { arguments: args }) },
  };
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdio-test", version: "1.0.0" } },
};
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

// The text of a successful tool result with exactly one text block.
export function textOf(response: Response): string {
  expect(response.error).toBeUndefined();
  const content = response.result?.content as { type: string; text: string }[] | undefined;
  expect(content).toHaveLength(1);
  expect(content?.[0]?.type).toBe("text");
  return content?.[0]?.text as string;
}

export function expectToolResult(response: Response, text: string): void {
  expect(textOf(response)).toBe(text);
  expect(response.result?.isError).not.toBe(true);
}

export function expectError(response: Response, code: number, id: Id): void {
  expect(response.id).toEqual(id);
  expect(response.result).toBeUndefined();
  expect(response.error?.code).toBe(code);
}

export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** End what a test left running, and check that every process wrote only JSON-RPC responses to stdout. */
export function checkRunning(): void {
  const all = running.splice(0);
  for (const fixture of all) if (fixture.exit === undefined) fixture.child.kill("SIGKILL");
  for (const fixture of all) {
    expect(fixture.problems, "every stdout line must be a JSON-RPC response").toEqual([]);
  }
}
