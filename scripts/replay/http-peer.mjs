// An HTTP peer that records: raw requests through node:http (one connection each), and what came back: the status
// line, the headers (all but Date, by name), and the body, an event stream event by event as it arrived.
import { request } from "node:http";
import { deadline } from "./wait.mjs";

/** One request and what came back, read as it arrives. */
class Exchange {
  events = [];
  #request;
  #wake;
  #ended = false;
  #failed;
  #text = "";
  #clientClosed = false;

  constructor(record, url, spec) {
    this.record = record;
    const target = new URL(spec.path ?? url.pathname, url);
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    this.response = new Promise((resolve) => {
      this.#request = request(
        target,
        {
          method: spec.method ?? "POST",
          headers: spec.headers,
          agent: false,
          setHost: spec.headers?.host === undefined,
        },
        (res) => {
          record.response = {
            status: `${res.statusCode} ${res.statusMessage}`,
            headers: headersOf(res),
            body: undefined,
          };
          res.setEncoding("utf8");
          const stream = (res.headers["content-type"] ?? "").startsWith("text/event-stream");
          record.response.events = stream ? this.events : undefined;
          res.on("data", (chunk) => {
            this.#text += chunk;
            if (stream) this.#split();
            this.#wake?.();
          });
          const end = () => {
            if (this.#ended) return;
            this.#ended = true;
            if (stream) {
              this.#split();
              if (this.#text !== "") this.events.push(`${this.#text} (cut)`);
              if (this.#clientClosed) this.events.push("(closed by the client)");
            } else record.response.body = this.#text;
            this.#wake?.();
          };
          res.on("end", end);
          res.on("close", end);
          resolve(record.response);
        },
      );
      this.#request.on("error", (error) => {
        if (this.#clientClosed) return;
        record.response ??= { status: `no response: ${error.code ?? error.message}`, headers: {} };
        this.#failed = error;
        this.#ended = true;
        this.#wake?.();
        resolve(record.response);
      });
      if (spec.chunks) {
        for (const chunk of spec.chunks) this.#request.write(chunk);
        this.#request.end();
      } else this.#request.end(body);
    });
  }

  #split() {
    for (let end = this.#text.indexOf("\n\n"); end >= 0; end = this.#text.indexOf("\n\n")) {
      this.events.push(this.#text.slice(0, end));
      this.#text = this.#text.slice(end + 2);
    }
  }

  /** The JSON-RPC messages of the events so far (the `data:` of each), from index `from`. */
  messagesFrom(from) {
    return this.events.slice(from).flatMap((event) => {
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      try {
        return data === "" ? [] : [JSON.parse(data)];
      } catch {
        return [];
      }
    });
  }

  /** The last `id:` of an event so far (for Last-Event-ID). */
  get lastEventId() {
    for (const event of [...this.events].reverse()) {
      const line = event.split("\n").find((l) => l.startsWith("id:"));
      if (line) return line.slice(3).trim();
    }
    return undefined;
  }

  /** Resolves once the body ended (the server closed it), or when the wait is late. */
  async ended(ms) {
    await this.next(() => this.#ended, ms);
  }

  /** Wait until `ok()` holds after some event (or the end); "late", "ended" or true. */
  async next(ok, ms) {
    const limit = deadline(ms);
    try {
      for (;;) {
        if (ok()) return true;
        if (this.#ended) return "ended";
        const more = new Promise((resolve) => {
          this.#wake = resolve;
        });
        if ((await Promise.race([more, limit.promise])) === "late") {
          this.record.late = true;
          return "late";
        }
      }
    } finally {
      limit.clear();
      this.#wake = undefined;
    }
  }

  get done() {
    return this.#ended;
  }

  get failed() {
    return this.#failed;
  }

  /** Close the connection (a client that goes away from a stream). */
  close() {
    if (this.#ended) return;
    this.#clientClosed = true;
    this.#request.destroy();
  }
}

// Every header but Date (and keep-alive's timeout), by name; Content-Length as whether it is the body's length.
function headersOf(res) {
  const headers = {};
  for (const name of Object.keys(res.headers).sort()) {
    if (name === "date") continue;
    headers[name] = res.headers[name];
  }
  return headers;
}

/** Records every exchange with one or more server processes (their MCP URLs). */
export class HttpPeer {
  exchanges = [];
  #urls;
  #open = new Set();

  constructor(urls) {
    this.#urls = urls.map((url) => new URL(url));
  }

  /** Start a request (`spec`: method, path, headers, body or chunks, to: the process index). */
  open(label, spec) {
    const to = spec.to ?? 0;
    const record = {
      label,
      request: { method: spec.method ?? "POST", path: spec.path ?? this.#urls[to].pathname, to, headers: spec.headers },
      body: spec.chunks ? spec.chunks.join("") : spec.body,
    };
    if (this.#urls.length === 1) delete record.request.to;
    this.exchanges.push(record);
    const exchange = new Exchange(record, this.#urls[to], spec);
    this.#open.add(exchange);
    return exchange;
  }

  /** Close every stream still open. */
  closeAll() {
    for (const exchange of this.#open) exchange.close();
  }
}
