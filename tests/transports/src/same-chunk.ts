import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/client";

// A pipe under load hands the client the reply that announces a 2025-11-25 task and what the server wrote after it
// in one chunk, whose lines the client handles one after another before its own promise chains run on: a question
// in that chunk is handled before the reply is. This client transport makes that happen every time: it holds the
// first such reply and what follows until the task is said to wait on the client (notifications/tasks/status
// input_required, which the server sends once the question is in the task) and a ping it then sends is answered (on
// one ordered stream, everything written before that answer has come), then hands the client all of it at once.

type Held = [JSONRPCMessage, MessageExtraInfo | undefined];

const BARRIER = "same-chunk-ping";

/** The id of the task a message announces (a 2025-11-25 CreateTaskResult), if it is one. */
function announced(message: JSONRPCMessage): string | undefined {
  const task = "result" in message ? (message.result as { task?: { taskId?: unknown } }).task : undefined;
  return typeof task?.taskId === "string" ? task.taskId : undefined;
}

/** Whether `message` says task `id` waits on the client. */
function waitsOnClient(message: JSONRPCMessage, id: string): boolean {
  if (!("method" in message) || message.method !== "notifications/tasks/status") return false;
  const params = message.params as { taskId?: unknown; status?: unknown } | undefined;
  return params?.taskId === id && params.status === "input_required";
}

/** A transport that reads the first task's announcement, and all the server wrote up to a barrier, as one chunk. */
export class SameChunkTransport implements Transport {
  readonly #inner: Transport;
  #held: Held[] | undefined;
  #task: string | undefined;
  #done = false;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.#received(message, extra);
  }

  #received(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const held = this.#held;
    if (held !== undefined && this.#task !== undefined) {
      if ("id" in message && message.id === BARRIER) {
        this.#held = undefined;
        this.#done = true;
        for (const [one, its] of held) this.onmessage?.(one, its);
        return;
      }
      held.push([message, extra]);
      if (waitsOnClient(message, this.#task)) {
        void this.#inner.send({ jsonrpc: "2.0", id: BARRIER, method: "ping" }).catch((error: Error) => {
          this.onerror?.(error);
        });
      }
      return;
    }
    const task = this.#done ? undefined : announced(message);
    if (task !== undefined) {
      this.#task = task;
      this.#held = [[message, extra]];
      return;
    }
    this.onmessage?.(message, extra);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#inner.setSupportedProtocolVersions?.(versions);
  }
}
