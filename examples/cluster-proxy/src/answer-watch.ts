import { StringDecoder } from "node:string_decoder";
import { ErrorCode } from "@toolsmith/core";

type Id = string | number;

/** The ids of the JSON-RPC requests in a body (one request, or a batch); none when it holds no request. */
export function requestIds(body: Buffer): Id[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return [];
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
    if (typeof message !== "object" || message === null) return [];
    const { id, method } = message as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}

const STOPPED =
  "The server process serving this request stopped before it answered (the proxy saw its connection end); it may have acted on it";

/**
 * Follows an SSE answer on its way to the client, to tell which requests it answered, so that when the backend dies
 * mid-stream the proxy can answer the others with an error rather than leave the client waiting.
 */
export class AnswerWatch {
  readonly #answered = new Set<string>();
  readonly #decoder = new StringDecoder("utf8");
  #line = "";
  #data: string[] = [];

  /** Bytes the backend wrote, as the client gets them. */
  feed(chunk: Buffer): void {
    this.#line += this.#decoder.write(chunk);
    for (let end = this.#line.indexOf("\n"); end !== -1; end = this.#line.indexOf("\n")) {
      const line = this.#line.slice(0, end).replace(/\r$/, "");
      this.#line = this.#line.slice(end + 1);
      if (line === "") this.#dispatch();
      else if (line.startsWith("data:")) this.#data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
  }

  /**
   * What to write before ending the stream: one JSON-RPC error event per request of `ids` not answered yet (after a
   * blank line when the backend was cut mid-event), or "" when each was answered.
   */
  ending(ids: readonly Id[]): string {
    const open = ids.filter((id) => !this.#answered.has(JSON.stringify(id)));
    if (open.length === 0) return "";
    const cut = this.#line !== "" || this.#data.length > 0 ? "\n\n" : "";
    const events = open.map((id) => {
      const error = { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: STOPPED } };
      return `event: message\ndata: ${JSON.stringify(error)}\n\n`;
    });
    return cut + events.join("");
  }

  #dispatch(): void {
    const data = this.#data.join("\n");
    this.#data = [];
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    for (const one of Array.isArray(message) ? message : [message]) {
      if (typeof one !== "object" || one === null || !("id" in one)) continue;
      if ("result" in one || "error" in one) this.#answered.add(JSON.stringify(one.id));
    }
  }
}
