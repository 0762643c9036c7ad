import { expect } from "vitest";
import { z } from "zod";
import { createServer, type ErrorReport, type Server } from "../index.js";
import { type Connection, MetaKey } from "../transport.js";
import { connectLines, replyTo } from "./connection.test-util.js";

// Shared by the connection tests: a server with one of each kind of thing, and the messages they send it.

export const HANDSHAKE = ["2025-03-26", "2025-06-18", "2025-11-25"] as const;
export const CLIENT = { name: "raw-client", version: "0.0.1" };
export const META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT,
};

export type Json = Record<string, unknown>;

/** What the fixture advertises: logging always, and list changes (and subscriptions) for every kind it registers. */
export const FIXTURE_CAPABILITIES = {
  logging: {},
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
};

export interface Gate {
  /** Resolves once the slow tool's handler is running. */
  started: Promise<void>;
  /** Lets the slow tool finish with this text. */
  release(value: string): void;
  signals: AbortSignal[];
}

/** Tools echo, who and slow (held by the gate), resources docs://ok and docs://broken (throws), prompt greet. */
export function fixture(options: { onError?: (error: unknown, where: ErrorReport) => void } = {}) {
  let release: (value: string) => void = () => {};
  let markStarted: () => void = () => {};
  const gate: Gate = {
    started: new Promise<void>((resolve) => {
      markStarted = resolve;
    }),
    release: (value) => release(value),
    signals: [],
  };
  const finished = new Promise<string>((resolve) => {
    release = resolve;
  });
  const server: Server = createServer({
    name: "session-test",
    version: "1.2.3",
    instructions: "Use echo to echo.",
    ...options,
  });
  server.tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
  server.tool({
    name: "who",
    description: "Who is calling",
    handler: (_args, ctx) => ({ clientInfo: ctx.clientInfo ?? null, version: ctx.protocolVersion }),
  });
  server.tool({
    name: "slow",
    description: "Waits until released or cancelled",
    handler: (_args, ctx) => {
      gate.signals.push(ctx.signal);
      markStarted();
      const aborted = new Promise<string>((resolve) => {
        ctx.signal.addEventListener("abort", () => resolve("aborted"));
      });
      return Promise.race([finished, aborted]);
    },
  });
  server.resource({ uri: "docs://ok", handler: () => "fine" });
  server.resource({
    uri: "docs://broken",
    handler: () => {
      throw new Error("cannot open /srv/secret/db.sqlite");
    },
  });
  server.prompt({ name: "greet", args: { person: z.string() }, handler: ({ person }) => `Hello ${person}` });
  return { server, gate };
}

/** Send one message (or raw line) and parse its reply; undefined when nothing answers it. */
export async function send(session: Connection, message: unknown): Promise<unknown> {
  const line = typeof message === "string" ? message : JSON.stringify(message);
  const reply = await replyTo(session, line);
  return reply === undefined ? undefined : JSON.parse(reply);
}

export function request(id: unknown, method: string, params?: Json): Json {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

export function notification(method: string, params?: Json): Json {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

export function initializeParams(protocolVersion: string): Json {
  return { protocolVersion, capabilities: {}, clientInfo: CLIENT };
}

/** A JSON-RPC error reply with this id and code, and a message (exactly this one, or one this pattern matches). */
export function errorReply(id: unknown, code: number, message?: string | RegExp) {
  const said =
    message === undefined ? expect.any(String) : typeof message === "string" ? message : expect.stringMatching(message);
  return { jsonrpc: "2.0", id, error: expect.objectContaining({ code, message: said }) };
}

/** 2026-07-28 params: these, with a valid `_meta`. */
export function stateless(params: Json = {}): Json {
  return { ...params, _meta: META };
}

/** A connection through initialize and notifications/initialized. */
export async function handshake(server: Server, protocolVersion = "2025-11-25"): Promise<Connection> {
  const session = connectLines(server);
  const reply = (await send(session, request("init", "initialize", initializeParams(protocolVersion)))) as Json;
  expect(reply.result).toMatchObject({ protocolVersion });
  expect(await send(session, notification("notifications/initialized"))).toBeUndefined();
  return session;
}
