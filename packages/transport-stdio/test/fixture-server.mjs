// A small server for the spawned stdio tests: node fixture-server.mjs (MAX_LINE_BYTES, SHUTDOWN_TIMEOUT_MS optional).
import { setTimeout as delay } from "node:timers/promises";
import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

const PATTERN = "0123456789abcdef";

const server = createServer({ name: "stdio-fixture", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Return the text",
  input: { text: z.string() },
  handler: ({ text }) => text,
});
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});
server.tool({
  name: "sleep",
  description: "Wait ms milliseconds, then say so",
  input: { ms: z.number().int().min(0) },
  handler: async ({ ms }, ctx) => {
    await delay(ms, undefined, { signal: ctx.signal });
    return `slept ${ms}`;
  },
});
server.tool({
  name: "noisy",
  description: "Print to stdout in every way user code can, then return ok",
  handler: () => {
    console.log("noisy: console.log");
    console.info("noisy: console.info");
    console.warn("noisy: console.warn");
    console.debug("noisy: console.debug");
    process.stdout.write("noisy: process.stdout.write\n");
    return "ok";
  },
});
server.tool({
  name: "big",
  description: "Return a string of that many characters (0123456789abcdef repeated)",
  input: { bytes: z.number().int().min(0) },
  handler: ({ bytes }) => PATTERN.repeat(Math.ceil(bytes / PATTERN.length)).slice(0, bytes),
});
server.tool({
  name: "unicode",
  description: "Return text with line and paragraph separators, a newline and emoji",
  handler: () => "line\u2028separator\u2029paragraph\nnewline 😀🎉 done",
});

const maxLineBytes = process.env.MAX_LINE_BYTES ? Number(process.env.MAX_LINE_BYTES) : undefined;
const shutdownTimeoutMs = process.env.SHUTDOWN_TIMEOUT_MS ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : undefined;
serveStdio(server, {
  ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  ...(shutdownTimeoutMs === undefined ? {} : { shutdownTimeoutMs }),
});
