import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Values nested thousands deep, over stdio to a spawned server: each gets its JSON-RPC answer on stdout, the
// process lives on, and the next request is answered. The fixture imports the built packages: build first.

const FIXTURE = fileURLToPath(new URL("../test/nesting-server.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const WAIT_MS = 20_000;
const DEPTHS = [5_000, 50_000, 100_000];
const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
});

const arrays = (depth: number) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}"x"${"}".repeat(depth)}`;

interface Message {
  id?: unknown;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The fixture as a child process: lines in, every stdout line parsed, waits bounded and naming what they wait for. */
class Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Message[] = [];
  exited = false;
  #partial = "";
  #stderr = "";
  #waiters = new Set<() => void>();

  constructor() {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    this.child = spawn(process.execPath, [FIXTURE], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const lines = (this.#partial + chunk).split("\n");
      this.#partial = lines.pop() ?? "";
      for (const line of lines) this.messages.push(JSON.parse(line) as Message);
      this.#notify();
    });
    this.child.stderr.on("data", (chunk: string) => {
      this.#stderr += chunk;
    });
    this.child.stdin.on("error", () => {});
    this.child.on("close", () => {
      this.exited = true;
      this.#notify();
    });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** The first message after `from` that `match` accepts. */
  next(match: (message: Message) => boolean, what: string, from = 0): Promise<Message> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; stderr: ${this.#stderr.slice(-1000)}`));
      }, WAIT_MS);
      const check = () => {
        const found = this.messages.slice(from).find(match);
        if (found || this.exited) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          if (found) resolve(found);
          else reject(new Error(`the server exited before ${what}; stderr: ${this.#stderr.slice(-1000)}`));
        }
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Send a request line and wait for the reply to `id`. */
  async ask(line: string, id: unknown): Promise<Message> {
    const from = this.messages.length;
    this.send(line);
    return this.next((message) => message.id === id && message.method === undefined, `the reply to ${id}`, from);
  }

  /** The server answers its next request: it lives on. */
  async livesOn(modern: boolean, tag: string): Promise<void> {
    const meta = modern ? `,"_meta":${META}` : "";
    const id = `alive-${tag}`;
    const reply = await this.ask(
      `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}${meta}}}`,
      id,
    );
    expect(reply.result?.content).toEqual([{ type: "text", text: "ok" }]);
    expect(this.exited).toBe(false);
  }
}

function call(id: string, method: string, params: string, modern: boolean): string {
  return `{"jsonrpc":"2.0","id":"${id}","method":"${method}","params":{${params}${modern ? `,"_meta":${META}` : ""}}}`;
}

const DEEP = /nests deeper than 64 levels/;

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error("build first: npx -y pnpm@12.4.2 run build");
});

// Each shape: the params at a depth, the method, and the code (or, for a tool's own failure, "isError") answered.
type Shape = [string, string, (depth: number) => string, number | "isError", RegExp];

const MODERN: Shape[] = [
  [
    "arguments on a plain tool",
    "tools/call",
    (d) => `"name":"echo","arguments":{"text":${objects(d)}}`,
    "isError",
    /text/,
  ],
  [
    "arguments taken as anything",
    "tools/call",
    (d) => `"name":"anything","arguments":{"data":${arrays(d)}}`,
    "isError",
    DEEP,
  ],
  [
    "arguments on a tool that elicits (the requestState digest)",
    "tools/call",
    (d) => `"name":"asks","arguments":{"flight":"LH1","extra":${objects(d)}}`,
    -32602,
    /params\.arguments nests deeper/,
  ],
  [
    "inputResponses",
    "tools/call",
    (d) => `"name":"asks","arguments":{"flight":"LH1"},"inputResponses":{"elicit-1":{"action":${arrays(d)}}}`,
    -32602,
    /params\.inputResponses nests deeper/,
  ],
  ["a cursor", "tools/list", (d) => `"cursor":${arrays(d)}`, -32602, /cursor/],
  [
    "a completion argument",
    "completion/complete",
    (d) => `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":${arrays(d)}}`,
    -32602,
    /argument\.value/,
  ],
  ["a resource uri", "resources/read", (d) => `"uri":${arrays(d)}`, -32602, /uri/],
  ["a resource uri on a retry", "resources/read", (d) => `"uri":${arrays(d)},"inputResponses":{}`, -32602, /uri/],
];

const HANDSHAKE: Shape[] = [
  ["logging/setLevel's level", "logging/setLevel", (d) => `"level":${objects(d)}`, -32602, /Invalid log level/],
  [
    "arguments taken as anything",
    "tools/call",
    (d) => `"name":"anything","arguments":{"data":${objects(d)}}`,
    "isError",
    DEEP,
  ],
  ["a cursor", "tools/list", (d) => `"cursor":${objects(d)}`, -32602, /cursor/],
  ["a resource uri", "resources/read", (d) => `"uri":${arrays(d)}`, -32602, /uri/],
];

function expectAnswer(reply: Message, expected: number | "isError", message: RegExp): void {
  if (expected === "isError") {
    expect(reply.result?.isError, JSON.stringify(reply).slice(0, 300)).toBe(true);
    expect(JSON.stringify(reply.result?.content)).toMatch(message);
  } else {
    expect(reply.error?.code, JSON.stringify(reply).slice(0, 300)).toBe(expected);
    expect(reply.error?.message).toMatch(message);
  }
}

describe("stdio, 2026-07-28: values nested thousands deep", () => {
  let served: Served;
  beforeAll(() => {
    served = new Served();
  });
  afterAll(() => served.child.kill());

  it.each(DEPTHS)("_meta's protocolVersion, %i deep: -32602", async (depth) => {
    const meta = `{"io.modelcontextprotocol/protocolVersion":${arrays(depth)},"io.modelcontextprotocol/clientCapabilities":{}}`;
    const reply = await served.ask(
      `{"jsonrpc":"2.0","id":"v${depth}","method":"tools/list","params":{"_meta":${meta}}}`,
      `v${depth}`,
    );
    expectAnswer(reply, -32602, /protocolVersion/);
    await served.livesOn(true, `v${depth}`);
  });

  it.each(DEPTHS)("an id, %i deep: -32600 with id null", async (depth) => {
    const from = served.messages.length;
    served.send(`{"jsonrpc":"2.0","id":${arrays(depth)},"method":"tools/list","params":{"_meta":${META}}}`);
    expectAnswer(await served.next((message) => message.id === null, "the reply with id null", from), -32600, /id/);
    await served.livesOn(true, `id${depth}`);
  });

  for (const [what, method, params, expected, message] of MODERN) {
    it.each(DEPTHS)(`${what}, %i deep: ${expected}`, async (depth) => {
      const id = `${what}-${depth}`;
      expectAnswer(await served.ask(call(id, method, params(depth), true), id), expected, message);
      await served.livesOn(true, id);
    });
  }
});

describe("stdio, handshake era: values nested thousands deep", () => {
  let served: Served;
  beforeAll(async () => {
    served = new Served();
    const init = `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}`;
    await served.ask(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":${init}}`, "init");
    served.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  });
  afterAll(() => served.child.kill());

  for (const [what, method, params, expected, message] of HANDSHAKE) {
    it.each(DEPTHS)(`${what}, %i deep: ${expected}`, async (depth) => {
      const id = `${what}-${depth}`;
      expectAnswer(await served.ask(call(id, method, params(depth), false), id), expected, message);
      await served.livesOn(false, id);
    });
  }

  it.each(DEPTHS)("arguments on a tool that elicits, then an answer nested %i deep: -32602", async (depth) => {
    const from = served.messages.length;
    const id = `asks-${depth}`;
    served.send(call(id, "tools/call", `"name":"asks","arguments":{"flight":"LH1","extra":${arrays(depth)}}`, false));
    const asked = await served.next((message) => message.method === "elicitation/create", "the question", from);
    served.send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(asked.id)},"result":{"action":"accept","content":{"seat":${objects(depth)}}}}`,
    );
    const reply = await served.next((message) => message.id === id, `the reply to ${id}`, from);
    expectAnswer(reply, -32602, /answer to elicitation\/create nests deeper/);
    await served.livesOn(false, id);
  });
});
