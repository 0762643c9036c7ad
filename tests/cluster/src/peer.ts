import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  Client,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/client";

export type Mode = "legacy" | { pin: "2026-07-28" };

/** A notification the client dispatched, or a request of the server it answered. */
export interface Heard {
  method: string;
  params: Record<string, unknown>;
}

/** One POST the client made through the proxy: its JSON-RPC method(s) and the status it got. */
export interface Sent {
  methods: string[];
  status: number;
}

/** The official client, with handlers that answer like a user, a model and a file system, and what it heard. */
export interface Peer {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every message the client received, in order. */
  wire: JSONRPCMessage[];
  /** Notifications and server requests, in the order the client's handlers ran. */
  heard: Heard[];
  /** Every POST it made, with the answer's status. */
  sent: Sent[];
  /** A folder of its own, shared as its one root. */
  root: string;
  /** While set, an elicitation waits for it (the question stays open). */
  hold: { elicitation?: Promise<void> };
  /** Errors the transport reported (a stream cut by a killed process). */
  errors: Error[];
}

const NOTIFICATIONS = [
  // Not notifications/progress: the client routes it to each request's onprogress.
  "notifications/message",
  "notifications/resources/updated",
  "notifications/tools/list_changed",
] as const;

/** Connect the official client to `url` in `mode`. */
export async function connectPeer(
  url: string,
  mode: Mode,
  transportOptions: StreamableHTTPClientTransportOptions = {},
): Promise<Peer> {
  const client = new Client(
    { name: "cluster-test", version: "1.0.0" },
    {
      capabilities: {
        elicitation: { form: {} },
        sampling: {},
        roots: { listChanged: true },
      },
      versionNegotiation: { mode },
    },
  );
  const sent: Sent[] = [];
  // A tap on what the client POSTs, to tell which requests it made (a second initialize would show here).
  const tapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === "POST" && typeof init.body === "string") {
      const body = JSON.parse(init.body) as { method?: string } | { method?: string }[];
      const methods = (Array.isArray(body) ? body : [body]).flatMap((message) => message.method ?? "(answer)");
      sent.push({ methods, status: response.status });
    }
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: tapped, ...transportOptions });
  const root = mkdtempSync(join(tmpdir(), "toolsmith-cluster-root-"));
  const peer: Peer = { client, transport, wire: [], heard: [], sent, root, hold: {}, errors: [] };
  const hear = (method: string, params: unknown) => {
    peer.heard.push({ method, params: (params ?? {}) as Record<string, unknown> });
  };
  client.setRequestHandler("elicitation/create", async (request) => {
    hear(request.method, request.params);
    await peer.hold.elicitation;
    return { action: "accept", content: { seat: "window", meal: "vegan" } };
  });
  client.setRequestHandler("sampling/createMessage", async (request) => {
    hear(request.method, request.params);
    return {
      role: "assistant" as const,
      model: "cluster-model",
      content: { type: "text" as const, text: "A smooth hop, written by the client's model." },
    };
  });
  client.setRequestHandler("roots/list", async (request) => {
    hear(request.method, request.params);
    return { roots: [{ uri: pathToFileURL(root).href, name: "cluster root" }] };
  });
  for (const method of NOTIFICATIONS) {
    client.setNotificationHandler(method, (note) => {
      hear(method, note.params);
    });
  }
  client.onerror = (error) => {
    peer.errors.push(error);
  };
  transport.onmessage = (message) => {
    peer.wire.push(message);
  };
  await client.connect(transport);
  return peer;
}

/** What the client heard of `method` since `mark` (an index into `peer.heard`). */
export function heardSince(peer: Peer, method: string, mark = 0): Record<string, unknown>[] {
  return peer.heard.slice(mark).flatMap((heard) => (heard.method === method ? [heard.params] : []));
}

/** The first text block of a tool result. */
export function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === "text" ? (first.text ?? "") : "";
}
