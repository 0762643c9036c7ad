import { Agent, request } from "node:http";
import { LIMIT_BYTES } from "../../transports/src/fixture-server.js";

// One table of hostile requests, sent as raw HTTP/1.1 (the Host header too) to an MCP endpoint of the shared
// fixture (maxBodyBytes LIMIT_BYTES): every front door on every runtime must answer each one as Node's listen does.

/** What a door answered: the status, the media type, and the JSON-RPC error (code and message) if one came. */
export interface Answer {
  status: number;
  type: string | null;
  error: { code: number; message: string } | null;
  /** The JSON-RPC result's own keys, for a request that succeeded. */
  result: string[] | null;
}

export interface HostileCase {
  name: string;
  /** Default POST. */
  method?: string;
  /** Replace or add headers; `null` leaves one out. */
  headers?: Record<string, string | null>;
  /** The body as sent (a function: built when sent). */
  body?: string | Buffer | (() => string | Buffer);
  /** Send the body chunked, with no Content-Length. */
  chunked?: boolean;
  /** Declare the whole body's length, send only this many bytes of it, and wait for the answer. */
  sendFirst?: number;
  /** Sent on a kept-alive connection right after a body refused (413) while it was still being sent. */
  afterRefused?: boolean;
  /** The status Node's listen gives, pinned so the table says what is expected, not only that doors agree. */
  status: number;
  /** Where createHttpHandler's defaults answer otherwise (it knows no port: any loopback Host port passes). */
  handlerStatus?: number;
}

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A stateless `tools/call` of the fixture's `echo`, whose `text` is `value`. */
const call = (value: unknown) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "echo", arguments: { text: value }, _meta: META },
  });
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

export const HOSTILE_CASES: readonly HostileCase[] = [
  { name: "a well-formed call (the baseline)", body: call("hi"), status: 200 },
  { name: "malformed JSON", body: '{"jsonrpc": "2.0", "id": 1, "method": ', status: 400 },
  { name: "JSON that is not a JSON-RPC message", body: '"just a string"', status: 400 },
  { name: "an empty body", body: "", status: 400 },
  { name: "invalid UTF-8", body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), status: 400 },
  { name: "a body over the limit, declared", body: () => call("x".repeat(LIMIT_BYTES)), status: 413 },
  { name: "a body over the limit, chunked", body: () => call("x".repeat(LIMIT_BYTES)), chunked: true, status: 413 },
  // Node's doors read (and drop) at most 1 MiB past the limit, then cut the connection: a client still sending a
  // 4 MiB body could see that reset first, so this one stops after its first 64 KiB and waits for the answer.
  {
    name: "a huge body (4 MiB) declared, its first 64 KiB sent",
    body: () => call("x".repeat(4 * 1024 * 1024)),
    sendFirst: 64 * 1024,
    status: 413,
  },
  { name: "arguments nested 10,000 deep", body: () => call("DEEP").replace('"DEEP"', nested(10_000)), status: 200 },
  { name: "a body nested 30,000 deep, under the limit", body: () => nested(30_000), status: 400 },
  {
    name: "params nested 100 deep in _meta",
    body: () => call("x").replace('"_meta":{', `"_meta":{"deep":${nested(100)},`),
    status: 200,
  },
  { name: "DNS rebinding: a foreign Host", headers: { host: "attacker.example" }, body: call("hi"), status: 403 },
  {
    name: "DNS rebinding: a loopback-looking Host",
    headers: { host: "127.0.0.1.attacker.example" },
    body: call("hi"),
    status: 403,
  },
  {
    name: "DNS rebinding: localhost as a subdomain",
    headers: { host: "localhost.attacker.example:80" },
    body: call("hi"),
    status: 403,
  },
  {
    name: "a loopback Host on another port",
    headers: { host: "localhost:1" },
    body: call("hi"),
    status: 403,
    handlerStatus: 200,
  },
  { name: "a foreign Origin", headers: { origin: "https://attacker.example" }, body: call("hi"), status: 403 },
  { name: "Origin null", headers: { origin: "null" }, body: call("hi"), status: 403 },
  { name: "a loopback Origin", headers: { origin: "http://localhost:5173" }, body: call("hi"), status: 200 },
  { name: "the wrong Content-Type", headers: { "content-type": "text/plain" }, body: call("hi"), status: 415 },
  { name: "no Accept", headers: { accept: null }, body: call("hi"), status: 406 },
  {
    name: "a version header that differs from _meta's",
    headers: { "mcp-protocol-version": "2025-11-25" },
    body: call("hi"),
    status: 400,
  },
  { name: "PUT", method: "PUT", body: call("hi"), status: 405 },
  {
    name: "GET without a session",
    method: "GET",
    headers: { "content-type": null, "mcp-protocol-version": null },
    status: 405,
  },
  { name: "a call on the connection of a body refused mid-way", afterRefused: true, body: call("hi"), status: 200 },
];

/** The refused body an `afterRefused` case follows (over the limit, within what Node's doors read past it). */
export const REFUSED = HOSTILE_CASES.find(
  (hostile) => hostile.name === "a body over the limit, chunked",
) as HostileCase;

const BASE_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": VERSION,
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

/** What the JSON-RPC answer of a body says (an SSE body: its last data line). */
function parseAnswer(text: string): Pick<Answer, "error" | "result"> {
  const data = text.trimStart().startsWith("{")
    ? text
    : text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .at(-1)
        ?.slice(6);
  if (!data) return { error: null, result: null };
  const message = JSON.parse(data) as { error?: { code: number; message: string }; result?: object };
  return {
    error: message.error ? { code: message.error.code, message: message.error.message } : null,
    result: message.result ? Object.keys(message.result).sort() : null,
  };
}

/** Send one case to the endpoint `url`, on a connection of its own, and read its answer. */
export async function send(url: string, hostile: HostileCase): Promise<Answer> {
  if (!hostile.afterRefused) return sendOn(url, hostile, false);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // A door that reset the connection under the refused body has failed the case already (see hostile.test.ts).
    await sendOn(url, REFUSED, agent);
    return await sendOn(url, hostile, agent);
  } finally {
    agent.destroy();
  }
}

function sendOn(url: string, hostile: HostileCase, agent: Agent | false): Promise<Answer> {
  const target = new URL(url);
  const body = typeof hostile.body === "function" ? hostile.body() : (hostile.body ?? "");
  const headers: Record<string, string> = { ...BASE_HEADERS, host: target.host };
  for (const [key, value] of Object.entries(hostile.headers ?? {})) {
    if (value === null) delete headers[key];
    else headers[key] = value;
  }
  if (!hostile.chunked && hostile.method !== "GET") headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: hostile.method ?? "POST",
        headers,
        agent,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => {
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers["content-type"]?.split(";")[0] ?? null,
            ...parseAnswer(text),
          });
          // The rest of a body sent in part is never sent: the connection goes.
          if (hostile.sendFirst !== undefined) outgoing.destroy();
        });
        response.on("error", reject);
      },
    );
    // A door may answer (413) and close before the whole body went: what it answered is what counts.
    outgoing.on("error", (error) => reject(error));
    if (hostile.method === "GET") outgoing.end();
    else if (hostile.sendFirst !== undefined) outgoing.write(Buffer.from(body).subarray(0, hostile.sendFirst));
    else if (hostile.chunked) {
      const bytes = Buffer.from(body);
      for (let at = 0; at < bytes.length; at += 64 * 1024) outgoing.write(bytes.subarray(at, at + 64 * 1024));
      outgoing.end();
    } else outgoing.end(body);
  });
}
