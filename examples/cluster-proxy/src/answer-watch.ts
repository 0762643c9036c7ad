import { StringDecoder } from "node:string_decoder";
import { ErrorCode } from "@toolsmith/core";
import { errorLine, idText } from "@toolsmith/core/transport";

// A batch's elements, each as its own text: `idText` reads a number id past 2^53 exactly off one message's text.
function elementTexts(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (char === "[" || char === "{") {
      if (++depth === 1) from = i + 1;
    } else if (char === "]" || char === "}") {
      if (--depth === 0) return [...out, text.slice(from, i)];
    } else if (char === "," && depth === 1) {
      out.push(text.slice(from, i));
      from = i + 1;
    }
  }
  return out;
}

/** Each message of a JSON text (one, or a batch) with its own text; none when it is not JSON. */
function messages(text: string): { message: unknown; text: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [{ message: parsed, text }];
  const texts = elementTexts(text);
  return parsed.map((message: unknown, i) => ({ message, text: texts[i] ?? "" }));
}

/**
 * The ids of the JSON-RPC requests in a body (one request, or a batch), each as the JSON text the request carried
 * (a number past 2^53 exactly as written); none when it holds no request.
 */
export function requestIds(body: Buffer): string[] {
  return messages(body.toString("utf8")).flatMap(({ message, text }) => {
    if (typeof message !== "object" || message === null) return [];
    const { id, method } = message as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? [idText(id, text)] : [];
  });
}

/**
 * Whether a body is only answers: JSON-RPC responses (the client's answers to the server's questions), one or a
 * batch, and nothing else. Such a POST asks nothing of the process it reaches but to pass the answers on to the one
 * that asked, and the server drops an answer to nothing pending: it is safe to send to another process.
 */
export function onlyAnswers(body: Buffer): boolean {
  const all = messages(body.toString("utf8"));
  return (
    all.length > 0 &&
    all.every(({ message }) => {
      if (typeof message !== "object" || message === null || "method" in message) return false;
      return "id" in message && ("result" in message || "error" in message);
    })
  );
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
   * What to write before ending the stream: one JSON-RPC error event per request of `ids` (`requestIds`'s texts) not
   * answered yet (after a blank line when the backend was cut mid-event), or "" when each was answered.
   */
  ending(ids: readonly string[]): string {
    const open = ids.filter((id) => !this.#answered.has(id));
    if (open.length === 0) return "";
    const cut = this.#line !== "" || this.#data.length > 0 ? "\n\n" : "";
    const events = open.map((id) => {
      const line = errorLine(id, { code: ErrorCode.InternalError, message: STOPPED });
      return `event: message\ndata: ${line}\n\n`;
    });
    return cut + events.join("");
  }

  #dispatch(): void {
    const data = this.#data.join("\n");
    this.#data = [];
    for (const { message: one, text } of messages(data)) {
      if (typeof one !== "object" || one === null || !("id" in one)) continue;
      if ("result" in one || "error" in one) this.#answered.add(idText(one.id, text));
    }
  }
}
