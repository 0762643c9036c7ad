// A recorded session as text lines, with only what is random replaced by stable placeholders: session and task ids
// and other UUIDs, sealed request states, timestamps and ports. The first value of a kind seen in a session becomes
// <kind-1>, the next new one <kind-2>, so a value that recurs (an id echoed back) keeps its placeholder.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
// A Redis stream entry id (milliseconds-sequence): what the Redis engine numbers SSE events with.
const STREAM_ID = /\b\d{13}-\d+\b/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
// JSON fields whose values are random by design (the kind each becomes).
const FIELDS = { taskId: "task", requestState: "state" };
const LONG = 2000;

class Placeholders {
  #tokens = new Map();
  #counts = new Map();
  #ports;

  constructor(urls = []) {
    this.#ports = urls.map((url, i) => [new URL(url).host, `127.0.0.1:<port-${i}>`]);
  }

  learn(kind, value) {
    if (typeof value !== "string" || value.length < 4 || this.#tokens.has(value)) return;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    this.#tokens.set(value, `<${kind}-${n}>`);
  }

  /** Learn the random fields of every JSON value in `text` (a line, a body, or an event's data). */
  learnJson(text) {
    const walk = (value) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") {
        for (const [key, inner] of Object.entries(value)) {
          if (Object.hasOwn(FIELDS, key)) this.learn(FIELDS[key], inner);
          walk(inner);
        }
      }
    };
    for (const piece of text.split("\n")) {
      const json = piece.startsWith("data:") ? piece.slice(5).trim() : piece.replace(/^\uFEFF/, "");
      if (!json.startsWith("{") && !json.startsWith("[")) continue;
      try {
        walk(JSON.parse(json));
      } catch {
        // Not JSON: nothing to learn.
      }
    }
  }

  apply(text) {
    if (text === undefined) return text;
    this.learnJson(text);
    for (const uuid of text.match(UUID) ?? []) this.learn("uuid", uuid.toLowerCase());
    for (const id of text.match(STREAM_ID) ?? []) this.learn("event", id);
    let out = text;
    for (const [value, placeholder] of this.#tokens) if (out.includes(value)) out = out.replaceAll(value, placeholder);
    for (const [host, placeholder] of this.#ports) out = out.replaceAll(host, placeholder);
    return out.replace(TIME, "<time>");
  }
}

/** The label of the last exchange of a session the replay could not finish (the error is its line). */
export const STOPPED = "replay stopped";

const clip = (text) => (text.length > LONG ? `${text.slice(0, LONG)}… (${text.length} characters)` : text);

function headerLines(prefix, headers, body, p) {
  const lines = [];
  for (const name of Object.keys(headers ?? {}).sort()) {
    let value = headers[name];
    if (name === "content-length" && body !== undefined) {
      const length = Buffer.byteLength(body);
      value = Number(value) === length ? "(the body's length)" : `${value} (the body is ${length} bytes)`;
    }
    lines.push(`${prefix} ${name}: ${p.apply(String(value))}`);
  }
  return lines;
}

function httpLines(exchange, p) {
  if (exchange.error) return [`! ${p.apply(exchange.error)}`];
  const { request, response } = exchange;
  p.learn("session", response?.headers?.["mcp-session-id"]);
  const lines = [`> ${request.method} ${request.path}${request.to === undefined ? "" : ` (process ${request.to})`}`];
  lines.push(...headerLines(">", request.headers, undefined, p));
  if (exchange.body !== undefined) lines.push(`> ${clip(p.apply(exchange.body))}`);
  if (!response) return [...lines, "< (no response)"];
  lines.push(`< ${response.status}`);
  lines.push(...headerLines("<", response.headers, response.body, p));
  if (response.events)
    for (const event of response.events) lines.push(`< [event] ${clip(p.apply(event)).replaceAll("\n", " | ")}`);
  else if (response.body) lines.push(`< ${clip(p.apply(response.body))}`);
  if (exchange.late) lines.push("! (the replay stopped waiting here)");
  return lines;
}

function stdioLines(exchange, p) {
  return exchange.lines.map(([direction, text]) => `${direction} ${clip(p.apply(text))}`);
}

/** A session's exchanges as { label, lines }, normalised in order (`urls`: its processes, for their ports). */
export function render(result) {
  const p = new Placeholders(result.urls);
  return result.exchanges.map((exchange) => ({
    label: exchange.label,
    lines: exchange.lines ? stdioLines(exchange, p) : httpLines(exchange, p),
  }));
}

/** The whole transcript of a side as text: sessions, exchanges, lines. */
export function transcriptText(sessions) {
  const out = [];
  for (const { name, exchanges } of sessions) {
    out.push(`#### ${name}`);
    exchanges.forEach((exchange, i) => {
      out.push(`## ${i + 1}. ${exchange.label}`, ...exchange.lines);
    });
  }
  return `${out.join("\n")}\n`;
}
