import { fileURLToPath } from "node:url";
import { Client, type ClientOptions } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { WAIT_MS } from "../../../scripts/wait.js";

// The official client, spawning the built server over stdio, answering as the conformance harness does.

export const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));

export type Mode = "legacy" | { pin: "2026-07-28" };

/** Both eras, for describe.each. */
export const ERAS: [string, Mode][] = [
  ["handshake era", "legacy"],
  ["stateless era", { pin: "2026-07-28" }],
];

export const ROOTS = { roots: [{ uri: "file:///test/root", name: "Test Root" }] };

// The harness's elicitation answers, by the question asked.
const ELICIT_ANSWERS: Record<string, Record<string, unknown>> = {
  "What is your name?": { name: "Alice" },
  "Step 1: What is your name?": { name: "Alice" },
  "Step 2: What is your favorite color?": { color: "blue" },
  "Please confirm": { ok: true },
  "What context should the prompt use?": { context: "test context" },
  "Elicitation input": { value: "typed" },
  "Please review and update the form fields with defaults": {
    name: "Jane Smith",
    age: 25,
    score: 88.0,
    status: "inactive",
    verified: false,
  },
  "Please select options from the enum fields": {
    untitledSingle: "option1",
    titledSingle: "value1",
    legacyEnum: "opt1",
    untitledMulti: ["option1", "option2"],
    titledMulti: ["value1", "value2"],
  },
};

const SAMPLE_ANSWERS: Record<string, string> = {
  "What is the capital of France?": "The capital of France is Paris.",
  "Generate a greeting": "Hello there!",
};

export interface Asked {
  method: string;
  params: Record<string, unknown>;
}

export interface Peer {
  client: Client;
  /** Every elicitation, sampling and roots request the client's handlers answered, in order. */
  asked: Asked[];
  close(): Promise<void>;
}

export interface PeerOptions {
  /** Declare and answer elicitation, sampling and roots (default true). */
  answers?: boolean;
  client?: Partial<ClientOptions>;
}

export async function connect(mode: Mode, options: PeerOptions = {}): Promise<Peer> {
  const answers = options.answers ?? true;
  const client = new Client(
    { name: "conformance-test-client", version: "1.0.0" },
    {
      ...(answers ? { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } } : {}),
      ...options.client,
      versionNegotiation: { mode },
    },
  );
  const asked: Asked[] = [];
  if (answers) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push({ method: request.method, params: request.params as Record<string, unknown> });
      const content = ELICIT_ANSWERS[request.params.message] ?? { username: "testuser", email: "test@example.com" };
      return { action: "accept", content } as never;
    });
    client.setRequestHandler("sampling/createMessage", async (request) => {
      asked.push({ method: request.method, params: request.params as Record<string, unknown> });
      const last = request.params.messages.at(-1)?.content as { text?: string } | undefined;
      const text = SAMPLE_ANSWERS[last?.text ?? ""] ?? "This is a test response from the client";
      return {
        role: "assistant" as const,
        model: "test-model",
        stopReason: "endTurn",
        content: { type: "text", text },
      };
    });
    client.setRequestHandler("roots/list", async (request) => {
      asked.push({ method: request.method, params: (request.params ?? {}) as Record<string, unknown> });
      return ROOTS;
    });
  }
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
  return { client, asked, close: () => client.close() };
}

/** Resolves with the first value `subscribe` hands it; rejects after `ms` (minutes: the server is a process). */
export function waitFor<T>(what: string, subscribe: (push: (value: T) => void) => void, ms = WAIT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gave up after ${ms / 1000} s waiting for ${what}`)), ms);
    subscribe((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** The text of a result's first content block. */
export function firstText(result: { content?: unknown }): string | undefined {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === "text" ? first.text : undefined;
}
