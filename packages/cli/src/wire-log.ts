import { LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import type { Colors } from "./colors.js";

export type Direction = "in" | "out";

interface Message {
  id?: unknown;
  method?: unknown;
  params?: { protocolVersion?: unknown; _meta?: Record<string, unknown> };
  result?: { protocolVersion?: unknown };
  error?: { code?: unknown; message?: unknown };
}

/**
 * Describes each JSON-RPC line that crosses a stdio pipe: its direction (→ to the server, ← to the host), the
 * revision it belongs to, what it is and, for a reply, how long its request took.
 */
export class WireLog {
  readonly #started = performance.now();
  /** The revision the handshake agreed on, for lines that do not say theirs. */
  #session: string | undefined;
  /** Requests waiting for a reply, by direction and id: when they went and in which revision. */
  readonly #pending = new Map<string, { at: number; era: string | undefined; method: string }>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly c: Colors,
  ) {}

  /** The line that opens a log. */
  header(what: string): void {
    this.write(this.c.dim(`wire: ${what}; → host to server, ← server to host`));
  }

  /** One line as it crossed, without its newline. */
  line(direction: Direction, raw: string): void {
    const now = performance.now();
    const c = this.c;
    const arrow = direction === "in" ? c.cyan("→") : c.green("←");
    const clock = c.dim(timestamp());
    const since = c.dim(`+${((now - this.#started) / 1000).toFixed(3)}s`);
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      this.write(`${clock} ${since} ${arrow} ${c.red("not JSON")} ${raw}`);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.write(`${clock} ${since} ${arrow} ${c.yellow(Array.isArray(message) ? "batch" : "?")} ${raw}`);
      return;
    }
    const key = (from: Direction) => `${from}:${JSON.stringify(message.id)}`;
    let era = eraOf(message) ?? this.#session;
    let what: string;
    if (typeof message.method === "string") {
      const isRequest = message.id !== undefined;
      what = isRequest ? `${message.method} #${JSON.stringify(message.id)}` : message.method;
      if (message.method === "initialize" && typeof message.params?.protocolVersion === "string") {
        era = message.params.protocolVersion;
        // Until the reply says otherwise, the session speaks what the host asked for.
        this.#session ??= era;
      }
      if (isRequest) this.#pending.set(key(direction), { at: now, era, method: message.method });
    } else {
      const request = this.#pending.get(key(direction === "in" ? "out" : "in"));
      this.#pending.delete(key(direction === "in" ? "out" : "in"));
      era = request?.era ?? era;
      if (request?.method === "initialize" && typeof message.result?.protocolVersion === "string") {
        this.#session = message.result.protocolVersion;
        era = this.#session;
      }
      const took = request ? ` ${(now - request.at).toFixed(1)}ms` : "";
      const label = message.error ? c.red(`error ${String(message.error.code)}`) : "result";
      what = `${label} #${JSON.stringify(message.id)}${request ? c.dim(` ${request.method}${took}`) : ""}`;
    }
    this.write(`${clock} ${since} ${arrow} ${c.magenta(era ?? "?")} ${what} ${c.dim(raw)}`);
  }
}

function eraOf(message: Message): string | undefined {
  if (message.method === "server/discover") return LATEST_STATELESS_VERSION;
  const version = message.params?._meta?.[MetaKey.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

function timestamp(): string {
  const d = new Date();
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Calls `onLine` with each complete line of a byte stream (without the newline; a trailing \r dropped). */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  let buffered: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      let start = 0;
      for (let at = buffered.indexOf(10, start); at >= 0; at = buffered.indexOf(10, start)) {
        const end = at > start && buffered[at - 1] === 13 ? at - 1 : at;
        if (end > start) onLine(buffered.toString("utf8", start, end));
        start = at + 1;
      }
      buffered = buffered.subarray(start);
    },
    end() {
      if (buffered.length > 0) onLine(buffered.toString("utf8"));
      buffered = Buffer.alloc(0);
    },
  };
}
