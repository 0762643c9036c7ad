import { tooDeep, tooDeepText } from "../wire/depth.js";
import { ClientError, McpError, shown } from "../wire/errors.js";
import { ErrorCode, isPlainObject, type RequestId } from "../wire/json-rpc.js";
import { AbortListeners } from "./abort-listeners.js";
import type { Outlet } from "./outlet.js";
import type { ServerCore } from "./server-core.js";

interface Pending {
  end(): void;
  settle(message: Record<string, unknown>): void;
  fail(error: unknown): void;
}

/** The server's own requests to the client (handshake era): their ids, timeouts, cancellation and answers. */
export class OutboundRequests {
  readonly #core: ServerCore;
  readonly #out: Outlet;
  // Made on the first request: most connections never ask the client anything (HTTP makes one per request).
  #pending: Map<RequestId, Pending> | undefined;
  // The questions of one call share its signal: one listener on it stands for all of them.
  readonly #aborts = new AbortListeners();
  #nextId = 0;
  #inputEnded = false;
  readonly #prefix: string | undefined;

  /** `prefix`: ids are `"<prefix>-<n>"` strings (unique across a server's processes), else numbers. */
  constructor(core: ServerCore, out: Outlet, prefix?: string) {
    this.#core = core;
    this.#out = out;
    this.#prefix = prefix;
  }

  /** How many are still unanswered. */
  get size(): number {
    return this.#pending?.size ?? 0;
  }

  request(
    method: string,
    params: Record<string, unknown>,
    options: { relatedTo: RequestId; tag: unknown; signal: AbortSignal },
  ): Promise<Record<string, unknown>> {
    const { relatedTo, tag, signal } = options;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#inputEnded) return Promise.reject(new Error(`Cannot ask ${method}: the client's input has ended`));
    const n = this.#nextId++;
    const id: RequestId = this.#prefix === undefined ? n : `${this.#prefix}-${n}`;
    const timeoutMs = this.#core.clientRequestTimeoutMs;
    this.#pending ??= new Map();
    const pendings = this.#pending;
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        stopWatching();
      };
      // Abandoned (timed out, or the request it serves was cancelled): the client is told to stop.
      const abandon = (error: unknown, reason: string) => {
        if (!pendings.delete(id)) return;
        cleanup();
        this.#out.notify("notifications/cancelled", { requestId: id, reason }, relatedTo, tag);
        reject(error);
      };
      const onAbort = () => abandon(signal.reason, "the request that asked was cancelled");
      const timer = setTimeout(
        () =>
          abandon(
            new Error(`The client did not answer ${method} within ${timeoutMs} ms`),
            `timed out after ${timeoutMs} ms`,
          ),
        timeoutMs,
      );
      (timer as { unref?: () => void }).unref?.();
      const stopWatching = this.#aborts.add(signal, onAbort);
      pendings.set(id, {
        end: () =>
          abandon(new Error(`The client's input ended before it answered ${method}`), "the client's input ended"),
        settle: (message) => {
          cleanup();
          if (isPlainObject(message.error)) {
            const { code, message: text, data } = message.error;
            const said = typeof text === "string" ? text : shown(text);
            reject(new ClientError(method, typeof code === "number" ? code : ErrorCode.InternalError, said, data));
          } else if (isPlainObject(message.result)) {
            // As in 2026-07-28's inputResponses: an answer the handler may walk is bounded.
            const deep = tooDeep(message.result);
            if (deep)
              reject(new McpError(ErrorCode.InvalidParams, tooDeepText(`The client's answer to ${method}`, deep)));
            else resolve(message.result);
          } else {
            reject(new McpError(ErrorCode.InvalidParams, `The client's answer to ${method} has no result object`));
          }
        },
        fail: (error) => {
          cleanup();
          reject(error);
        },
      });
      this.#out.emit({ jsonrpc: "2.0", id, method, params }, { kind: "request", relatedTo, tag });
    });
  }

  /** The client's answer to one of them; an answer to nothing pending (another process's, perhaps) is dropped. */
  settle(message: Record<string, unknown>): void {
    const id = message.id;
    if (typeof id !== "number" && typeof id !== "string") return;
    const pending = this.#pending?.get(id);
    if (!pending) return;
    this.#pending?.delete(id);
    pending.settle(message);
  }

  /**
   * The client can answer nothing more (its input ended, its output may still be read): every unanswered one fails
   * and the client is told to drop it; any asked from now on fails at once.
   */
  endOfInput(): void {
    this.#inputEnded = true;
    for (const request of [...(this.#pending?.values() ?? [])]) request.end();
  }

  /** Fail every unanswered one (the connection closed). */
  failAll(why: unknown): void {
    if (!this.#pending) return;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const request of pending) request.fail(why);
  }
}
