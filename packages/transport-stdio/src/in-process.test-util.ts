import { PassThrough, Writable } from "node:stream";
import { createServer, type Server } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { z } from "zod";
import { WAIT_MS } from "../../../scripts/wait.js";
import { type StdioOptions, serveStdio } from "./index.js";

// In-process serving over PassThrough streams, for the tests of serveStdio's parts.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };

export function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } });
}

export function cancel(requestId: number): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, _meta: META } });
}

/** Serve `server` over PassThrough streams; replies are collected by id. */
export function serve(server: Server, options: Partial<StdioOptions> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let logged = "";
  stderr.setEncoding("utf8").on("data", (chunk: string) => {
    logged += chunk;
  });
  const replies = new Map<unknown, Record<string, unknown>>();
  const all: Record<string, unknown>[] = [];
  let buffer = "";
  stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const text of lines) {
      const reply = JSON.parse(text) as Record<string, unknown>;
      replies.set(reply.id, reply);
      all.push(reply);
    }
  });
  const connection = serveStdio(server, { stdin, stdout, stderr, exitOnEnd: false, redirectStdout: false, ...options });
  return {
    connection,
    stdin,
    replies,
    /** Every reply, in order (`replies` keeps the last one per id). */
    all,
    stderr: () => logged,
    write: (...lines: string[]) => stdin.write(`${lines.join("\n")}\n`),
    end: () => stdin.end(),
    until: async (done: () => boolean, ms = WAIT_MS) => {
      const start = Date.now();
      while (!done()) {
        if (Date.now() - start > ms) throw new Error(`gave up after ${ms / 1000} s waiting`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

/** A server whose tools wait for their abort (wait), ignore it (hang), or answer at once (quick). */
export function untilCancelled(): Server {
  const server = createServer({ name: "l", version: "1" });
  server.tool({
    name: "wait",
    description: "runs until cancelled",
    handler: (_args, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"), { once: true })),
  });
  server.tool({
    name: "hang",
    description: "never finishes, ignores its signal",
    handler: () => new Promise(() => {}),
  });
  server.tool({ name: "quick", description: "answers at once", input: { n: z.number() }, handler: ({ n }) => n });
  return server;
}

/** Serve `lines` to `server` to the end of stdin; every line written to stdout, in order. */
export async function serveLines(
  server: Server,
  lines: readonly string[],
  options: Partial<StdioOptions> = {},
): Promise<string[]> {
  const written: string[] = [];
  const stdin = new PassThrough();
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(...chunk.toString("utf8").split("\n").slice(0, -1));
      callback();
    },
  });
  const connection = serveStdio(server, {
    stdin,
    stdout,
    stderr: new PassThrough().resume(),
    exitOnEnd: false,
    redirectStdout: false,
    ...options,
  });
  stdin.end(lines.map((line) => `${line}\n`).join(""));
  await connection.closed;
  return written;
}
