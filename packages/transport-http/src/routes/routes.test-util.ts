import { once } from "node:events";
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { createServer, type LogEntry } from "@toolsmith/core";
import { afterEach } from "vitest";
import { type HttpServer, type ListenOptions, listen } from "../doors/node-server.js";

// Shared by the tests of the user's routes: a server listening on 127.0.0.1:0, closed after each test, and clients
// that choose their Host header and their body's pacing.

/** The servers a test opened: closed after it. */
export const open: HttpServer[] = [];
afterEach(async () => {
  for (const listening of open.splice(0)) await listening.close();
});

/** A small MCP server, its log entries kept in `logged`. */
export function mcp(logged: LogEntry[] = []) {
  const server = createServer({ name: "routes", version: "1", logger: (entry) => logged.push(entry) });
  server.tool({ name: "one", description: "One", handler: () => "1" });
  return server;
}

/** `listen` with `routes` on a free port; the MCP endpoint's URL. */
export async function serve(routes: ListenOptions["routes"], options: ListenOptions = {}, logged?: LogEntry[]) {
  const listening = await listen(mcp(logged), { port: 0, log: null, routes, ...options });
  open.push(listening);
  return new URL(listening.url);
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request by node:http, so the Host header is the test's to choose. */
export async function send(
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body?: string | Buffer,
): Promise<Answer> {
  const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers });
  req.end(body);
  const [res] = (await once(req, "response")) as [IncomingMessage];
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return { status: res.statusCode ?? 0, headers: res.headers, body: text };
}

/** A text Response. */
export const ok = (text: string) => new Response(text, { headers: { "content-type": "text/plain" } });

/** One request on its own connection, its whole answer as text (the connection is closed by the server). */
export async function raw(port: number, request: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.write(request);
  await once(socket, "close");
  return text;
}
