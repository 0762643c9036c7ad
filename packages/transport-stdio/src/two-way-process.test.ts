import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

// The server's own requests over a real pipe: their answers behind floods, slow readers, cancellations, EOF, signals.
// The fixture imports the built packages (dist): build first.
const FIXTURE = fileURLToPath(new URL("../test/asking-server.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const WAIT_MS = 30_000;
const CALLS = 256;

type Message = Record<string, unknown> & { id?: string | number; method?: string };

const running: AskingServer[] = [];

/** The asking fixture as a child process: every stdout line parsed, replies by id, the server's requests kept. */
class AskingServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Replies (lines with no method) by id. */
  readonly replies = new Map<unknown, Message[]>();
  /** The server's elicitation/create requests, by the tag their message names. */
  readonly asks = new Map<string, Message>();
  readonly cancelled: Message[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #partial = "";
  readonly #waiters = new Set<() => boolean>();

  constructor(extraEnv: Record<string, string> = {}) {
    const env = { ...process.env, ...extraEnv };
    delete env.NODE_OPTIONS;
    this.child = spawn(process.execPath, [FIXTURE], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => this.#onStdout(chunk));
    this.child.stderr.resume();
    this.child.stdin.on("error", () => {});
    this.child.on("close", (code, signal) => {
      this.exit = { code, signal };
      this.#notify();
    });
    running.push(this);
  }

  send(...messages: object[]): void {
    this.child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
  }

  async initialize(): Promise<void> {
    this.send(
      {
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: {} },
          clientInfo: { name: "t", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    );
    await this.until(() => this.replies.has("init"), "the reply to initialize");
  }

  /** Start `count` ask calls (ids a0, a1, …, each with its own tag) and wait until each has asked. */
  async askMany(count: number): Promise<void> {
    this.send(...Array.from({ length: count }, (_, i) => askCall(i)));
    await this.until(() => this.asks.size === count, `${count} elicitation requests`);
  }

  /** The client's answer to the question a call tagged `tag` asked: the tag back. */
  answerTo(tag: string): Message {
    const ask = this.asks.get(tag);
    if (!ask) throw new Error(`no question for ${tag}`);
    return { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { said: tag } } };
  }

  /** Resolve once `check()` holds; reject if the server exits first, or after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(settle);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const settle = (): boolean => {
        if (check()) {
          clearTimeout(timer);
          resolve();
          return true;
        }
        if (this.exit) {
          clearTimeout(timer);
          reject(new Error(`the server exited (${JSON.stringify(this.exit)}) before ${what}`));
          return true;
        }
        return false;
      };
      if (!settle()) this.#waiters.add(settle);
    });
  }

  async exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for the server to exit")), WAIT_MS);
      const settle = () => {
        if (!this.exit) return false;
        clearTimeout(timer);
        resolve();
        return true;
      };
      if (!settle()) this.#waiters.add(settle);
    });
    return this.exit as { code: number | null; signal: NodeJS.Signals | null };
  }

  /** The one reply to `id` (fails on none or several). */
  only(id: unknown): Message {
    const replies = this.replies.get(id) ?? [];
    expect(replies, `replies to ${String(id)}`).toHaveLength(1);
    return replies[0] as Message;
  }

  #onStdout(chunk: string): void {
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      const message = JSON.parse(line) as Message;
      if (message.method === "elicitation/create") {
        const tag = String((message.params as { message: string }).message).replace(/^say /, "");
        this.asks.set(tag, message);
      } else if (message.method === "notifications/cancelled") {
        this.cancelled.push(message);
      } else if (message.method === undefined) {
        const list = this.replies.get(message.id) ?? [];
        list.push(message);
        this.replies.set(message.id, list);
      }
    }
    this.#notify();
  }

  #notify(): void {
    for (const settle of [...this.#waiters]) if (settle()) this.#waiters.delete(settle);
  }
}

const askCall = (i: number) => ({
  jsonrpc: "2.0",
  id: `a${i}`,
  method: "tools/call",
  params: { name: "ask", arguments: { tag: `t${i}` } },
});

/** About `bytes` of tools/list requests, ids l0, l1, … */
function toolsLists(bytes: number): object[] {
  const lines: object[] = [];
  for (let size = 0; size < bytes; ) {
    const line = { jsonrpc: "2.0", id: `l${lines.length}`, method: "tools/list" };
    size += JSON.stringify(line).length + 1;
    lines.push(line);
  }
  return lines;
}

const textOf = (reply: Message) => (reply.result as { content: { text: string }[] }).content[0]?.text;

// Ids whose replies are not exactly one that passes `good` (one expect for thousands of ids).
function badReplies(server: AskingServer, ids: string[], good: (reply: Message) => boolean): string[] {
  return ids.filter((id) => {
    const replies = server.replies.get(id) ?? [];
    return replies.length !== 1 || !good(replies[0] as Message);
  });
}

function expectAnswered(server: AskingServer, skip = new Set<number>()): void {
  const ids = Array.from({ length: CALLS }, (_, i) => i).filter((i) => !skip.has(i));
  expect(
    badReplies(
      server,
      ids.map((i) => `a${i}`),
      (reply) => textOf(reply) === `t${reply.id?.toString().slice(1)}`,
    ),
  ).toEqual([]);
}

function expectListed(server: AskingServer, lists: object[]): void {
  const ids = lists.map((_, i) => `l${i}`);
  expect(badReplies(server, ids, (reply) => Array.isArray((reply.result as { tools?: unknown })?.tools))).toEqual([]);
}

// The server lives on with stdin open, exits with code 0 once it closes, and said nothing it was not asked.
async function expectAliveUntilEnd(server: AskingServer, requests: number): Promise<void> {
  server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
  await server.until(() => server.replies.has("ping"), "the reply to a ping");
  expect(server.exit).toBeUndefined();
  server.child.stdin.end();
  expect(await server.exited()).toEqual({ code: 0, signal: null });
  expect([...server.replies.values()].flat()).toHaveLength(requests + 2);
}

/**
 * Write `text` in 64 KB pieces and resolve with how much the reader has taken once it took at least 256 KB and then
 * nothing more for 250 ms (it stopped reading), or all of it. A pause is a span of time: this is the one wait for one.
 */
function writeUntilRefused(stdin: NodeJS.WritableStream, text: string): Promise<number> {
  const piece = 64 * 1024;
  return new Promise((resolve) => {
    let taken = 0;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const settle = () => {
      clearTimeout(quiet);
      resolve(taken);
    };
    for (let at = 0; at < text.length; at += piece) {
      const chunk = text.slice(at, at + piece);
      stdin.write(chunk, () => {
        taken += chunk.length;
        clearTimeout(quiet);
        if (taken === text.length) settle();
        else if (taken >= 256 * 1024) quiet = setTimeout(settle, 250);
      });
    }
  });
}

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error("build first: npx -y pnpm@12.4.2 run build");
});

afterEach(() => {
  for (const server of running.splice(0)) if (server.exit === undefined) server.child.kill("SIGKILL");
});

describe("stdio, the server's requests to the client, spawned", () => {
  it("256 calls awaiting answers, 1.2 MB of tools/list, then the answers: every request gets one reply, stdin stays read", async () => {
    const server = new AskingServer();
    await server.initialize();
    await server.askMany(CALLS);
    const lists = toolsLists(1.2e6);
    server.send(...lists);
    server.send(...Array.from({ length: CALLS }, (_, i) => server.answerTo(`t${i}`)));
    await server.until(() => server.replies.size === 1 + CALLS + lists.length, "every reply");
    expectAnswered(server);
    expectListed(server, lists);
    await expectAliveUntilEnd(server, CALLS + lists.length);
  });

  it("answers interleaved inside the flood reach their calls", async () => {
    const server = new AskingServer();
    await server.initialize();
    await server.askMany(CALLS);
    const lists = toolsLists(1.2e6);
    const every = Math.floor(lists.length / CALLS);
    const flood: object[] = [];
    lists.forEach((line, i) => {
      flood.push(line);
      if (i % every === 0 && i / every < CALLS) flood.push(server.answerTo(`t${i / every}`));
    });
    server.send(...flood);
    await server.until(() => server.replies.size === 1 + CALLS + lists.length, "every reply");
    expectAnswered(server);
    expectListed(server, lists);
    await expectAliveUntilEnd(server, CALLS + lists.length);
  });

  it("a client that stops reading stdout for a while: the server stops reading at a bound, loses no reply, repeats none", async () => {
    const server = new AskingServer();
    await server.initialize();
    await server.askMany(CALLS);
    // 8 MB of pings with the answers spread through them, sent while no reply is read.
    const pings = Array.from({ length: 180_000 }, (_, i) => ({ jsonrpc: "2.0", id: `p${i}`, method: "ping" }));
    const every = Math.floor(pings.length / CALLS);
    const flood = pings.flatMap((ping, i) =>
      i % every === 0 && i / every < CALLS ? [ping, server.answerTo(`t${i / every}`)] : [ping],
    );
    const text = flood.map((message) => `${JSON.stringify(message)}\n`).join("");
    server.child.stdout.pause();
    const taken = await writeUntilRefused(server.child.stdin, text);
    // What a paused reader does not read is not buffered: reading stopped near 1 MiB of waiting requests.
    expect(taken, `the server took ${taken} of ${text.length} bytes while its replies went unread`).toBeLessThan(
      4 * 2 ** 20,
    );
    server.child.stdout.resume();
    await server.until(() => server.replies.size === 1 + CALLS + pings.length, "every reply");
    expectAnswered(server);
    const ids = pings.map((ping) => ping.id);
    expect(badReplies(server, ids, (reply) => JSON.stringify(reply.result) === "{}")).toEqual([]);
    await expectAliveUntilEnd(server, CALLS + pings.length);
  });

  it("a cancellation behind a flood cancels the call it names, and only that one", async () => {
    const server = new AskingServer();
    await server.initialize();
    await server.askMany(CALLS);
    const lists = toolsLists(1.2e6);
    server.send(...lists, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a17" } });
    await server.until(() => server.cancelled.length === 1, "the server dropping its question");
    expect(server.cancelled[0]?.params).toMatchObject({ requestId: server.asks.get("t17")?.id });
    server.send(...Array.from({ length: CALLS }, (_, i) => server.answerTo(`t${i}`)));
    await server.until(() => server.replies.size === CALLS + lists.length, "every reply but the cancelled call's");
    expect(server.replies.has("a17")).toBe(false);
    expectAnswered(server, new Set([17]));
    expectListed(server, lists);
    await expectAliveUntilEnd(server, CALLS - 1 + lists.length);
  });

  it("at EOF, calls awaiting an answer get exactly one reply (isError: no answer can come), then the process exits 0", async () => {
    const server = new AskingServer();
    await server.initialize();
    server.send(askCall(0), askCall(1), askCall(2));
    await server.until(() => server.asks.size === 3, "three questions");
    server.child.stdin.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    for (const id of ["a0", "a1", "a2"]) {
      expect(server.only(id).result).toEqual({
        content: [{ type: "text", text: "The client's input ended before it answered elicitation/create" }],
        isError: true,
      });
    }
    expect(server.cancelled.map((message) => (message.params as { requestId: unknown }).requestId).sort()).toEqual(
      [...server.asks.values()].map((ask) => ask.id).sort(),
    );
  });

  it("at EOF, a call that only waits for its abort is aborted at the shutdown timeout and answered before the exit", async () => {
    const server = new AskingServer({ SHUTDOWN_TIMEOUT_MS: "100" });
    await server.initialize();
    server.send({ jsonrpc: "2.0", id: "w", method: "tools/call", params: { name: "wait" } });
    server.child.stdin.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(textOf(server.only("w"))).toBe("aborted");
  });

  it("at EOF, a handler that ignores its abort and the requests still waiting each get one -32000 reply; exit 0", async () => {
    const server = new AskingServer({ SHUTDOWN_TIMEOUT_MS: "100", MAX_IN_FLIGHT: "2" });
    await server.initialize();
    const call = (id: string, name: string, args: object = {}) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    });
    // Two slots: "deaf" and "wait" hold them; "sleep" and the ping wait their turn, which never comes in time.
    server.send(call("deaf", "deaf"), call("wait", "wait"), call("sleep", "sleep", { ms: 60_000 }), {
      jsonrpc: "2.0",
      id: "ping",
      method: "ping",
    });
    server.child.stdin.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(textOf(server.only("wait"))).toBe("aborted");
    expect(server.only("deaf").error).toEqual({
      code: -32000,
      message: "Server shutting down: the request did not finish once aborted (its handler ignored ctx.signal)",
    });
    for (const id of ["sleep", "ping"]) {
      expect(server.only(id).error).toEqual({
        code: -32000,
        message:
          "Server shutting down: this request was still waiting for its turn 100 ms after the client's input ended",
      });
    }
  });

  it("a byte order mark before the first line is ignored: the request is answered by its id", async () => {
    const server = new AskingServer();
    server.child.stdin.write(`\uFEFF${JSON.stringify({ jsonrpc: "2.0", id: "bom", method: "ping" })}\n`);
    await server.until(() => server.replies.has("bom"), "the reply to the ping");
    expect(server.only("bom")).toEqual({ jsonrpc: "2.0", id: "bom", result: {} });
    server.child.stdin.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s ends the input as EOF does: what runs is answered, then exit 0",
    async (signal) => {
      const server = new AskingServer();
      await server.initialize();
      server.send(askCall(0), {
        jsonrpc: "2.0",
        id: "s",
        method: "tools/call",
        params: { name: "sleep", arguments: { ms: 200 } },
      });
      await server.until(() => server.asks.size === 1, "the question");
      server.child.kill(signal);
      expect(await server.exited()).toEqual({ code: 0, signal: null });
      expect(server.only("a0").result).toMatchObject({ isError: true });
      expect(textOf(server.only("s"))).toBe("slept 200");
    },
  );
});
