import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { within } from "../../../scripts/wait.js";
import { createRemote, type RemoteOptions } from "./index.js";

// Event streams and refusals as remotes other than the TypeScript SDK write them, through both paths of the gateway:
// the lane (a plain tool, "echo") and the official client (a tool with an argument sent as a header, "headed", and a prompt).
// The remote is a handshake-era one on node:http whose answers each test writes; the gateway is served over HTTP to
// the official client.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

interface Message {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown> & { protocolVersion?: string };
}

/** How a test answers a tools/call or prompts/get: the request, its parsed body, the response to write. */
type Answer = (res: ServerResponse, message: Message, req: IncomingMessage) => void;
/** How a test answers a POST that carries the gateway's response to one of the remote's requests. */
type Answered = (res: ServerResponse, message: Message, req: IncomingMessage) => void;

interface Raw {
  url: string;
  /** How many initialize requests the remote was sent. */
  initialized: () => number;
}

async function raw(answer: Answer, answered?: Answered, resumed?: (res: ServerResponse) => void): Promise<Raw> {
  let initialized = 0;
  const server = createHttpServer(async (req, res) => {
    if (req.method === "GET" && req.headers["last-event-id"] !== undefined && resumed) return resumed(res);
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as Message;
    if (message.method === undefined || message.method === "notifications/cancelled") {
      if (answered) return answered(res, message, req);
      return void res.writeHead(202).end();
    }
    if (message.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.method === "initialize") {
      initialized++;
      return json({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {}, prompts: {} },
        serverInfo: { name: "raw", version: "1.0.0" },
      });
    }
    if (message.method === "tools/list") {
      // "headed" has an argument sent as a header (x-mcp-header): the lane leaves its calls to the client.
      const headed = { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } };
      const tools = [
        { name: "echo", description: "echo", inputSchema: { type: "object" } },
        { name: "headed", description: "headed", inputSchema: headed },
      ];
      return json({ tools });
    }
    if (message.method === "prompts/list") return json({ prompts: [{ name: "greet", description: "greet" }] });
    answer(res, message, req);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  open.unshift({
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, initialized: () => initialized };
}

async function gateway(url: string, extra: Partial<RemoteOptions> = {}): Promise<Client> {
  const remote = await createRemote({ url, era: "legacy", backoff: { initialMs: 10 }, ...extra } as RemoteOptions);
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.setLogger(() => undefined);
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  open.push(client);
  return client;
}

const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;
const promptText = (got: { messages: { content: unknown }[] }) => (got.messages[0]?.content as { text?: string })?.text;

/** The reply to `message` as the remote means it: a tool's text, or a prompt's one message. */
function replyTo(message: Message, text: string): string {
  const result =
    message.method === "prompts/get"
      ? { messages: [{ role: "user", content: { type: "text", text } }] }
      : { content: [{ type: "text", text }] };
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
}

/** Writes each of `chunks` a turn of the event loop apart, so that the gateway may read each as a chunk of its own. */
function inTurns(res: ServerResponse, chunks: Buffer[], done: () => void = () => res.end()): void {
  res.socket?.setNoDelay(true);
  let at = 0;
  const tick = () => {
    if (at >= chunks.length) return done();
    res.write(chunks[at++]);
    setImmediate(tick);
  };
  tick();
}

// Each way an event stream may be written, as a function of the reply's JSON text.
const WRITTEN: [string, (reply: string) => string][] = [
  // As sse-starlette (behind the official Python SDK) writes: CRLF line ends, a ping comment before the event.
  [
    "CRLF line ends and a comment",
    (reply) => `: ping - 2026-12-08 00:00:00\r\n\r\nevent: message\r\ndata: ${reply}\r\n\r\n`,
  ],
  ["CR line ends", (reply) => `: hello\r\revent: message\rdata: ${reply}\r\r`],
  ["a BOM first", (reply) => `\uFEFFevent: message\ndata: ${reply}\n\n`],
  // The JSON cut over three data lines between its tokens (joined by LF, white space to JSON), with an id and a retry.
  [
    "multi-line data",
    (reply) => {
      const [a, b] = [1, reply.indexOf(',"id"') + 1];
      return `id: 7\nretry: 10\ndata: ${reply.slice(0, a)}\ndata: ${reply.slice(a, b)}\r\ndata:${reply.slice(b)}\n\n`;
    },
  ],
  ["empty lines and comments before the event", (reply) => `\n\n\n:\n\n:x\n\n${"\n".repeat(10_000)}data: ${reply}\n\n`],
];

describe.each([
  ["the lane (a plain tool)", "r.echo"],
  ["the official client (a tool with a header argument)", "r.headed"],
  ["the official client (a prompt)", "r.greet"],
])("an event stream as other servers write it, read by %s", (_, name) => {
  const ask = async (client: Client) =>
    name === "r.greet"
      ? promptText(await client.getPrompt({ name }))
      : textOf(await client.callTool({ name, arguments: {} }));

  it.each(WRITTEN.filter((w) => !process.env.ONLY || w[0] === process.env.ONLY))(
    "%s: the reply is read",
    async (__, write) => {
      const TEXT = "héllo 😀 wörld";
      const r = await raw((res, message) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(write(replyTo(message, TEXT)));
      });
      expect(await ask(await gateway(r.url))).toBe(TEXT);
    },
  );

  it("an event split inside each multi-byte character, CRLF split between chunks: the reply is read whole", async () => {
    const TEXT = "é€😀".repeat(20);
    const r = await raw((res, message) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const bytes = Buffer.from(`event: message\r\ndata: ${replyTo(message, TEXT)}\r\n\r\n`);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.byteLength; at += 3) chunks.push(bytes.subarray(at, at + 3));
      inTurns(res, chunks);
    });
    expect(await ask(await gateway(r.url))).toBe(TEXT);
  });
});

describe("what a hostile remote asks of the lane", () => {
  // A remote that ends a stream at once asking to be called back after more than a timer can hold (2^31 + 1 ms):
  // `reach` is given a gateway (a 1 s time-out) in front of it; the resumes it saw and the warnings printed are told.
  async function hugeRetry(reach: (client: Client) => Promise<void>): Promise<{ resumes: number; warnings: string[] }> {
    let resumes = 0;
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const r = await raw(
        (res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(`id: 1\nretry: ${2 ** 31 + 1}\ndata: \n\n`);
        },
        undefined,
        (res) => {
          resumes++;
          res.writeHead(200, { "content-type": "text/event-stream" }).end("data: \n\n");
        },
      );
      await reach(await gateway(r.url, { timeoutMs: 1000 }));
      return { resumes, warnings: warnings.map(String) };
    } finally {
      process.off("warning", onWarning);
    }
  }

  it("a retry past what a timer holds is waited (to the call's timeout), not taken as at once", async () => {
    const seen = await hugeRetry(async (client) => {
      const result = await client.callTool({ name: "r.echo", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/did not answer within 1000 ms/);
    });
    expect(seen).toEqual({ resumes: 0, warnings: [] });
  });

  it("the same retry on a stream the official client reads (a prompt): passed on as a wait a timer holds", async () => {
    const seen = await hugeRetry(async (client) => {
      const error = await client.getPrompt({ name: "r.greet" }).then(
        () => undefined,
        (thrown: Error) => thrown,
      );
      expect(String(error?.message)).toMatch(/did not answer within 1000 ms/);
    });
    expect(seen).toEqual({ resumes: 0, warnings: [] });
  });

  it("an answer POST the remote never answers is hung up on, not held for ever", async () => {
    let closed: () => void = () => undefined;
    const answerClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    let reply: () => void = () => undefined;
    const r = await raw(
      (res, message) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: "p-1", method: "ping" })}\n\n`);
        reply = () => res.end(`data: ${replyTo(message, "answered")}\n\n`);
      },
      (res, _message, req) => {
        // The answer is read, never answered; the call's reply follows on its stream.
        req.socket.once("close", closed);
        res.socket?.setKeepAlive(true);
        reply();
      },
    );
    const client = await gateway(r.url, { timeoutMs: 2000 });
    expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("answered");
    await within(answerClosed, "the unanswered answer POST hung up on", 30_000);
  });

  it("an answer POST of the official client's (a question on a prompt's stream) the remote never answers is hung up on", async () => {
    let closed: () => void = () => undefined;
    const answerClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    let reply: () => void = () => undefined;
    const r = await raw(
      (res, message) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: "p-1", method: "ping" })}\n\n`);
        reply = () => res.end(`data: ${replyTo(message, "answered")}\n\n`);
      },
      (_res, _message, req) => {
        req.socket.once("close", closed);
        reply();
      },
    );
    const client = await gateway(r.url, { timeoutMs: 2000 });
    expect(promptText(await client.getPrompt({ name: "r.greet" }))).toBe("answered");
    await within(answerClosed, "the unanswered answer POST hung up on", 30_000);
  });

  it("a cancel POST the remote never answers is hung up on, not held for ever", async () => {
    let closed: () => void = () => undefined;
    const cancelClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const r = await raw(
      (res) => {
        // The call is never answered: the gateway's time-out cancels it.
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": working\n\n");
      },
      (_res, message, req) => {
        if (message.method === "notifications/cancelled") req.socket.once("close", closed);
      },
    );
    const client = await gateway(r.url, { timeoutMs: 1000 });
    const result = await client.callTool({ name: "r.echo", arguments: {} });
    expect(textOf(result)).toMatch(/did not answer within 1000 ms/);
    await within(cancelClosed, "the unanswered cancel POST hung up on", 30_000);
  });
});

describe("a remote that refuses a request for now, through the official client", () => {
  it.each([429, 503])("HTTP %i to a prompts/get: an error naming the status, the link kept", async (status) => {
    let refused = false;
    const r = await raw((res, message) => {
      if (refused) {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(replyTo(message, "ok"));
      }
      refused = true;
      res.writeHead(status, { "content-type": "application/json", "retry-after": "30" }).end("x".repeat(100_000));
    });
    const client = await gateway(r.url);
    const error = await client.getPrompt({ name: "r.greet" }).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    const named = status === 429 ? "HTTP 429 Too Many Requests" : "HTTP 503 Service Unavailable";
    expect(String(error?.message)).toContain(`remote ${r.url} refused the request with ${named}`);
    const before = r.initialized();
    const got = await client.getPrompt({ name: "r.greet" });
    expect(promptText(got)).toBe("ok");
    expect(r.initialized()).toBe(before);
  });

  it("a prompt's event stream kept open after its reply is hung up on", async () => {
    let closed: () => void = () => undefined;
    const streamClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const r = await raw((res, message) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.once("close", closed);
      res.write(`data: ${replyTo(message, "kept open")}\n\n`);
    });
    const client = await gateway(r.url);
    const got = await client.getPrompt({ name: "r.greet" });
    expect(promptText(got)).toBe("kept open");
    await within(streamClosed, "the stream kept open hung up on", 30_000);
  });
});

describe("sole-call with a stdio remote that writes its replies' ids as strings", () => {
  it('a reply under id "3" ends the call 3 for the ties too: the next question alone goes to its caller', async () => {
    const remote = await createRemote({
      command: process.execPath,
      args: [fileURLToPath(new URL("./string-ids-remote.test-util.mjs", import.meta.url))],
      era: "legacy",
      untiedQuestions: "sole-call",
    });
    open.push(remote);
    const app = createServer({ name: "gateway", version: "1.0.0" });
    app.setLogger(() => undefined);
    app.mount("r", remote.server);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const client = new Client(
      { name: "test", version: "1.0.0" },
      { versionNegotiation: { mode: "legacy" }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: {} }));
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    open.push(client);
    for (let i = 0; i < 3; i++) expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("echoed");
    const confirmed = await client.callTool({ name: "r.confirm", arguments: {} });
    expect(JSON.parse(textOf(confirmed) ?? "null")).toEqual({ action: "accept", content: {} });
  });
});
