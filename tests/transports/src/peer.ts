import {
  Client,
  type ClientCapabilities,
  type ClientOptions,
  type JSONRPCMessage,
  ProtocolError,
  SdkHttpError,
  type Transport,
} from "@modelcontextprotocol/client";
import { expect } from "vitest";
import type { FixtureName } from "./fixture-server.js";

/** A transport under test: how the official client reaches a fixture server over it. */
export interface TransportTarget {
  /** A fresh client transport to a fixture server (stdio: a new process; HTTP: the runner's listener). */
  transport(fixture: FixtureName): Transport;
  /** True for the error the client sees when a message is over LIMIT_BYTES on this transport. */
  isOversizeError(error: unknown): boolean;
  /**
   * Tests known to fail on this transport, by key, in the eras named: they run as `it.fails`, so they stay
   * visible and turn red once fixed. Say how to reproduce each one where it is listed.
   */
  knownFailures?: Readonly<Record<string, readonly EraName[]>>;
  /** Everything the server sends comes on one ordered stream (stdio): what it wrote first is read first. */
  oneStream?: boolean;
  /**
   * A fixture server of its own and a way to shut it down with clients connected. Absent where the client
   * cannot watch a shutdown (stdio: the server's input ends only when the client closes it).
   */
  ownServer?(): Promise<{ transport(): Transport; shutdown(): Promise<void> }>;
}

export type EraName = "handshake" | "2026-07-28";

export type Mode = "legacy" | { pin: "2026-07-28" };

/** The handshake era (2025-11-25, the client's plain initialize) and the stateless 2026-07-28. */
export const ERAS: [string, Mode][] = [
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

const FULL: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
};
export const ROOT = "file:///work/fixture-root";

type ElicitAnswer = { action: "accept"; content?: Record<string, string> } | { action: "decline" | "cancel" };

interface Note {
  method: string;
  params: Record<string, unknown>;
}

/** One client of the official SDK with handlers that answer like a user and a model, and a tap on the wire. */
export interface Peer {
  client: Client;
  /** Every message the client received, in order, before the client dispatched it. */
  wire: JSONRPCMessage[];
  /** The requests the client's own handlers answered (elicitation, sampling, roots), in order. */
  asked: Note[];
  /** Notifications dispatched to the client's handlers (log messages, updates, list changes), in order. */
  notes: Note[];
  answer: { elicit: ElicitAnswer };
}

const NOTIFICATIONS = [
  "notifications/message",
  "notifications/resources/updated",
  "notifications/tools/list_changed",
] as const;

export interface ConnectOptions {
  /** Default "main". */
  fixture?: FixtureName;
  /** Default: elicitation (form and URL), sampling and roots, each answered by a handler. */
  capabilities?: ClientCapabilities;
  client?: Partial<ClientOptions>;
  /** Runs before connect, after the default handlers: may replace them. */
  setup?: (client: Client) => void;
  /** Instead of the target's transport to `fixture`. */
  transport?: Transport;
}

/** A client of the official SDK, in `mode`, connected over the target's transport. */
export async function connectPeer(target: TransportTarget, mode: Mode, options: ConnectOptions = {}): Promise<Peer> {
  const capabilities = options.capabilities ?? FULL;
  const client = new Client(
    { name: "transport-suite", version: "1.0.0" },
    { capabilities, ...options.client, versionNegotiation: { mode } },
  );
  const peer: Peer = { client, wire: [], asked: [], notes: [], answer: { elicit: { action: "accept" } } };
  const ask = (method: string, params: unknown) => peer.asked.push({ method, params: params as Note["params"] });
  if (capabilities.elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => {
      ask(request.method, request.params);
      const { elicit } = peer.answer;
      if (request.params.mode === "url" || elicit.action !== "accept") return { action: elicit.action };
      // By default the name is the role the question names ("What is your name, pilot?" → "pilot").
      const role = /, (.+)\?$/.exec(request.params.message)?.[1];
      return { action: "accept", content: elicit.content ?? { name: role ?? "Ada" } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler("sampling/createMessage", async (request) => {
      ask(request.method, request.params);
      const last = request.params.messages.at(-1)?.content as { text?: string } | undefined;
      return {
        role: "assistant" as const,
        model: "suite-model",
        stopReason: "endTurn",
        content: { type: "text" as const, text: `summary of "${last?.text}"` },
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler("roots/list", async (request) => {
      ask(request.method, request.params);
      return { roots: [{ uri: ROOT, name: "Fixture root" }] };
    });
  }
  for (const method of NOTIFICATIONS) {
    client.setNotificationHandler(method, (notification) => {
      peer.notes.push({ method, params: (notification.params ?? {}) as Note["params"] });
    });
  }
  options.setup?.(client);
  const transport = options.transport ?? target.transport(options.fixture ?? "main");
  // A tap: the client calls a transport's earlier onmessage before its own dispatch.
  transport.onmessage = (message) => {
    peer.wire.push(message);
  };
  await client.connect(transport);
  return peer;
}

// The server is another process (stdio) or behind a socket: what it sends may take a while on a loaded machine.
export { until } from "../../../scripts/wait.js";

/** Notifications on the wire since `mark`, by method. */
export function sent(peer: Peer, method: string, mark = 0): Record<string, unknown>[] {
  return peer.wire
    .slice(mark)
    .flatMap((message) =>
      "method" in message && message.method === method && !("id" in message) ? [message.params ?? {}] : [],
    );
}

/** Requests the server sent the client since `mark`, by method. */
export function serverRequests(peer: Peer, method: string, mark = 0): unknown[] {
  return peer.wire.slice(mark).filter((message) => "method" in message && message.method === method && "id" in message);
}

/** Results on the wire since `mark` that were input_required rounds. */
export function inputRounds(peer: Peer, mark = 0): Record<string, unknown>[] {
  return peer.wire.slice(mark).flatMap((message) => {
    const result = "result" in message ? (message.result as Record<string, unknown>) : undefined;
    return result?.resultType === "input_required" ? [result] : [];
  });
}

export function notesSince(peer: Peer, method: string, mark: number): Record<string, unknown>[] {
  return peer.notes.slice(mark).flatMap((note) => (note.method === method ? [note.params] : []));
}

export function firstText(result: { content?: unknown }): string | undefined {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === "text" ? first.text : undefined;
}

export function protocolError(code: number) {
  return (error: unknown) => error instanceof ProtocolError && error.code === code;
}

// The JSON-RPC error codes the server answered with since `mark`. On the wire: the client maps -32002 to -32602.
// Over HTTP, client 2.4.0 delivers a 2026-07-28 error body only with status 400; for another status (404 for
// -32601) it throws an SdkHttpError that carries the body as data.text.
function errorCodes(peer: Peer, mark: number, error: unknown): unknown[] {
  const codes = peer.wire.slice(mark).flatMap((message) => ("error" in message ? [message.error.code] : []));
  if (codes.length > 0 || !(error instanceof SdkHttpError) || typeof error.data.text !== "string") return codes;
  try {
    return [JSON.parse(error.data.text).error?.code];
  } catch {
    return [];
  }
}

/** The call fails with the JSON-RPC error `code` from the server. */
export async function failsOnWire(peer: Peer, call: () => Promise<unknown>, code: number): Promise<void> {
  const mark = peer.wire.length;
  const error = await call().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error, "the call failed").toBeDefined();
  expect(errorCodes(peer, mark, error)).toEqual([code]);
}

/** What a block of cases needs: its era, the block's shared peer, and clients of their own. */
export interface SuiteContext {
  target: TransportTarget;
  modern: boolean;
  /** The code a missing resource is answered with in this era. */
  notFound: number;
  /** `it`, or `it.fails` where the target lists `key` as a known failure in this era. */
  check(key: string): (name: string, test: () => Promise<void>) => void;
  /** The block's shared peer (in tests and hooks only). */
  peer(): Peer;
  /** A client of its own, closed with the block. */
  another(options?: ConnectOptions): Promise<Peer>;
  /** The client the limit tests share. */
  limits(): Promise<Client>;
}
