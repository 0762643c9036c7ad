// A stdio peer that records: it writes one message at a time and takes every line the server writes, each line going
// to the exchange during which it arrived (by its place in the stream, never by timing).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { deadline } from "./wait.mjs";

const FIXTURE = fileURLToPath(new URL("./fixture.mjs", import.meta.url));

/** The default end of an exchange: the response to the request sent. */
const responseTo = (id) => (message) =>
  message.method === undefined && JSON.stringify(message.id) === JSON.stringify(id);

export class StdioPeer {
  /** Every exchange so far: { label, lines: [">" | "<", text][] }. */
  exchanges = [];
  #child;
  #buffered = "";
  #lines = [];
  #waiter;
  #exited;
  #stderr = "";

  constructor(checkout) {
    this.#child = spawn(process.execPath, [FIXTURE, checkout, "stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    this.#child.stdout.setEncoding("utf8").on("data", (chunk) => this.#take(chunk));
    this.#child.stderr.setEncoding("utf8").on("data", (chunk) => {
      this.#stderr += chunk;
    });
    this.#child.stdin.on("error", () => {});
    this.#exited = new Promise((resolve) => this.#child.once("exit", (code, signal) => resolve(signal ?? code)));
  }

  get stderr() {
    return this.#stderr;
  }

  #take(chunk) {
    this.#buffered += chunk;
    for (let end = this.#buffered.indexOf("\n"); end >= 0; end = this.#buffered.indexOf("\n")) {
      this.#lines.push(this.#buffered.slice(0, end));
      this.#buffered = this.#buffered.slice(end + 1);
    }
    this.#waiter?.();
  }

  #write(text, record) {
    record.push([">", text]);
    this.#child.stdin.write(`${text}\n`);
  }

  /**
   * Write `message` (an object, or raw text) and record every line until `until` (default: the response to its id;
   * null: none awaited). `answer(request)` gives the reply to each request the server makes meanwhile.
   */
  async exchange(label, message, options = {}) {
    const record = [];
    this.exchanges.push({ label, lines: record });
    const raw = typeof message === "string" ? message : JSON.stringify(message);
    const until = options.until === undefined ? responseTo(message.id) : options.until;
    this.#write(raw, record);
    if (until === null) return undefined;
    const limit = deadline(options.ms);
    try {
      return await this.#until(label, until, options.answer, record, limit);
    } finally {
      limit.clear();
    }
  }

  async #until(label, until, answer, record, limit) {
    for (;;) {
      while (this.#lines.length > 0) {
        const line = this.#lines.shift();
        record.push(["<", line]);
        let parsed;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        if (parsed?.method !== undefined && parsed.id !== undefined && answer) {
          const reply = answer(parsed);
          if (reply !== undefined) this.#write(JSON.stringify(reply), record);
        }
        if (until(parsed)) return parsed;
      }
      const more = new Promise((resolve) => {
        this.#waiter = resolve;
      });
      const outcome = await Promise.race([more, this.#exited.then(() => "exit"), limit.promise]);
      this.#waiter = undefined;
      if (outcome === "exit" && this.#lines.length === 0) throw new Error(`${label}: the server exited`);
      if (outcome === "late") throw new Error(`${label}: no end after ${limit.ms} ms`);
    }
  }

  /** End stdin and record what comes until the server exits, and how it exits. */
  async close(label = "end of input") {
    const record = [];
    this.exchanges.push({ label, lines: record });
    this.#child.stdin.end();
    const limit = deadline();
    const code = await Promise.race([this.#exited, limit.promise]);
    limit.clear();
    if (code === "late") this.#child.kill("SIGKILL");
    for (const line of this.#lines.splice(0)) record.push(["<", line]);
    if (this.#buffered !== "") record.push(["<", `${this.#buffered} (no newline)`]);
    record.push(["=", `exit ${code === "late" ? "none: killed" : code}`]);
  }

  kill() {
    this.#child.kill("SIGKILL");
  }
}
