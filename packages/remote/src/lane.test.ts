import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type LogEntry } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { within } from "../../../scripts/wait.js";
import { createRemote, type RemoteOptions } from "./index.js";

// What the straight tools/call lane (lane.ts) must do as the official client does with the same remote: the
// gateway served over HTTP to the official client, the remote a real peer (the official SDK v2) or a hostile one.

const SDK_REMOTE = fileURLToPath(new URL("./sdk-remote.test-util.mjs", import.meta.url));

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function sdkOverHttp(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [SDK_REMOTE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  open.unshift({
    close: () => {
      child.kill();
      return exited;
    },
  });
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return line;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.push(client);
  return client;
}

async function gateway(options: RemoteOptions, logged: LogEntry[] = []): Promise<Client> {
  const remote = await createRemote({ era: "legacy", backoff: { initialMs: 60_000 }, ...options });
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.setLogger((entry) => logged.push(entry));
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  return connect(http.url);
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text ?? "") as string;
}

describe("the lane speaks to a remote as the official client does", () => {
  it("a call whose event stream the remote closes before answering is resumed with Last-Event-ID", async () => {
    const url = await sdkOverHttp(["--stateful", "--resumable"]);
    // The official client itself comes back for the answer.
    expect(textOf(await (await connect(url)).callTool({ name: "poll", arguments: {} }))).toBe("polled");
    const client = await gateway({ url });
    const result = await client.callTool({ name: "r.poll", arguments: {} });
    expect(textOf(result)).toBe("polled");
    expect(result.isError).not.toBe(true);
  });
});

interface Hostile {
  url: string;
  /** Every response the gateway POSTed back to one of the remote's requests. */
  readonly answers: Record<string, unknown>[];
  /** The requests each call's stream carried, by the call's id, as they were cancelled. */
  readonly cancelled: unknown[];
  /** Settles once the stream of a "linger" call closes. */
  readonly lingerClosed: Promise<void>;
  /** How many times a call's stream was taken up again (a GET with Last-Event-ID). */
  readonly resumed: () => number;
  /** The most connections the gateway had open to the remote at once. */
  readonly mostConnections: () => number;
}

// A hostile handshake-era remote on node:http (no SDK, no session): each tool answers on an event stream in a way
// the official client copes with, or that would make it do without bound what the remote asks.
async function hostile(flood = 1000): Promise<Hostile> {
  const answers: Record<string, unknown>[] = [];
  const cancelled: unknown[] = [];
  const waiting = new Map<string, (answer: Record<string, unknown>) => void>();
  const streams = new Map<unknown, ServerResponse>();
  let lingered: () => void = () => undefined;
  const lingerClosed = new Promise<void>((resolve) => {
    lingered = resolve;
  });
  const event = (res: ServerResponse, message: unknown) => res.write(`data: ${JSON.stringify(message)}\n\n`);
  const text = (value: string) => ({ content: [{ type: "text", text: value }] });
  let resumed = 0;
  // Each stream of a "bounce" call gives a new event id, asks to be resumed at once, and ends without the reply.
  const bounce = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`id: ${resumed}\nretry: 0\ndata: \n\n`);
  };
  // The calls whose stream, taken up after the event id they gave, logs and then replies.
  const logAfter = new Map<string, unknown>();
  const server = createHttpServer(async (req, res) => {
    const last = req.headers["last-event-id"];
    if (req.method === "GET" && typeof last === "string" && logAfter.has(last)) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const params = { level: "warning", logger: "resumed", data: "said on the resumed stream" };
      event(res, { jsonrpc: "2.0", method: "notifications/message", params });
      event(res, { jsonrpc: "2.0", id: logAfter.get(last), result: text("resumed") });
      return void res.end();
    }
    if (req.method === "GET" && last !== undefined) {
      resumed += 1;
      return bounce(res);
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as Record<string, unknown> & { params?: Record<string, unknown> };
    if (message.method === undefined) {
      answers.push(message);
      waiting.get(String(message.id))?.(message);
      return void res.writeHead(202).end();
    }
    if (message.method === "notifications/cancelled") {
      cancelled.push(message.params?.requestId);
      streams.get(message.params?.requestId)?.end();
      return void res.writeHead(202).end();
    }
    if (message.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.method === "initialize") {
      return json({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1.0.0" },
      });
    }
    if (message.method === "tools/list") {
      const names = ["ping", "linger", "flood", "garbage", "bounce", "resumed", "pings"];
      return json({ tools: names.map((name) => ({ name, description: name, inputSchema: { type: "object" } })) });
    }
    if (message.params?.name === "bounce") return bounce(res);
    if (message.params?.name === "resumed") {
      // Ends the call's stream at once, to be taken up after event "log-<id>".
      logAfter.set(`log-${message.id}`, message.id);
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end(`id: log-${message.id}\nretry: 0\ndata: \n\n`);
    }
    if (message.params?.name === "garbage") {
      // Blocks the client's result schema refuses: a text block whose text is a number, an isError that is a word.
      return json({ content: [{ type: "text", text: 5 }, { type: "image" }], isError: "yes" });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const reply = (result: unknown) => event(res, { jsonrpc: "2.0", id: message.id, result });
    streams.set(message.id, res);
    switch (message.params?.name) {
      case "ping": {
        // The client answers a ping with an empty result, on any stream.
        const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set("ping-1", resolve));
        event(res, { jsonrpc: "2.0", id: "ping-1", method: "ping" });
        const { result, error } = await answered;
        reply(text(JSON.stringify({ result, error })));
        return void res.end();
      }
      case "linger":
        // Answers, and keeps the stream open: the reader must hang up once it has the reply.
        res.once("close", () => lingered());
        return void reply(text("lingered"));
      case "pings": {
        // Fifty pings at once; answers the call once every ping was answered.
        const all = Array.from(
          { length: 50 },
          (_, i) => new Promise<unknown>((resolve) => waiting.set(`p-${i}`, resolve)),
        );
        for (let i = 0; i < 50; i++) event(res, { jsonrpc: "2.0", id: `p-${i}`, method: "ping" });
        await Promise.all(all);
        reply(text("pinged"));
        return void res.end();
      }
      case "flood": {
        // Asks without end; answers the call only once every question was answered.
        const all = new Promise<void>((resolve) => {
          let left = flood;
          for (let i = 0; i < flood; i++) {
            waiting.set(`q-${i}`, () => {
              if (--left === 0) resolve();
            });
          }
        });
        for (let i = 0; i < flood; i++) event(res, { jsonrpc: "2.0", id: `q-${i}`, method: "x/unknown" });
        await all;
        reply(text("flooded"));
        return void res.end();
      }
    }
  });
  let connections = 0;
  let mostConnections = 0;
  server.on("connection", (socket) => {
    mostConnections = Math.max(mostConnections, ++connections);
    socket.once("close", () => connections--);
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
  return { url, answers, cancelled, lingerClosed, resumed: () => resumed, mostConnections: () => mostConnections };
}

describe("a hostile remote's event stream", () => {
  it("a ping on the call's stream is answered with an empty result, as the client answers it", async () => {
    const remote = await hostile();
    const client = await gateway({ url: remote.url });
    const result = await client.callTool({ name: "r.ping", arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({ result: {} });
  });

  it("a result the client's schema refuses is an isError naming the remote, as through the client", async () => {
    const remote = await hostile();
    const client = await gateway({ url: remote.url });
    const result = await client.callTool({ name: "r.garbage", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^remote http:\/\/127\.0\.0\.1:\d+\/mcp /);
  });

  it("a stream ended again and again with a new event id is taken up at most 100 times", async () => {
    const remote = await hostile();
    const client = await gateway({ url: remote.url, timeoutMs: 20_000 });
    const result = await client.callTool({ name: "r.bounce", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ended before the call's reply/);
    expect(remote.resumed()).toBeLessThanOrEqual(100);
  });

  it("a log on the call's stream taken up again (Last-Event-ID) reaches the call's caller, not the gateway's log", async () => {
    const remote = await hostile();
    const logged: LogEntry[] = [];
    const client = await gateway({ url: remote.url }, logged);
    const heard: unknown[] = [];
    client.setNotificationHandler("notifications/message", (notification) => void heard.push(notification.params));
    expect(textOf(await client.callTool({ name: "r.resumed", arguments: {} }))).toBe("resumed");
    expect(heard).toEqual([{ level: "warning", logger: "resumed", data: "said on the resumed stream" }]);
    expect(logged.filter((entry) => entry.message.includes("resumed stream"))).toEqual([]);
  });

  it("a stream kept open after the reply is closed by the gateway once it has the reply", async () => {
    const remote = await hostile();
    const client = await gateway({ url: remote.url });
    expect(textOf(await client.callTool({ name: "r.linger", arguments: {} }))).toBe("lingered");
    await within(remote.lingerClosed, "the lingering stream closed by the gateway");
  });

  it("50 questions at once on one call: all answered, over at most 4 sockets at once besides the call's", async () => {
    const remote = await hostile();
    const client = await gateway({ url: remote.url });
    expect(textOf(await client.callTool({ name: "r.pings", arguments: {} }))).toBe("pinged");
    expect(remote.answers.filter((answer) => String(answer.id).startsWith("p-"))).toHaveLength(50);
    // The call's own socket, the client's (its handshake, the list), and the answers' four.
    expect(remote.mostConnections()).toBeLessThanOrEqual(6);
  });

  it("a flood of requests on one call: at most 100 answered, then the call is cut and cancelled", async () => {
    const remote = await hostile(1000);
    const client = await gateway({ url: remote.url });
    const result = await client.callTool({ name: "r.flood", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/More than 100 questions in one call/);
    await within(
      new Promise<void>((resolve) => {
        const look = () => (remote.cancelled.length > 0 ? resolve() : setImmediate(look));
        look();
      }),
      "the flooded call cancelled on the remote",
    );
    expect(remote.answers.length).toBeLessThanOrEqual(100);
  });
});
