import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import type { CallToolResult } from "@toolsmith/core";
import { MAX_QUESTIONS } from "./ask.js";
import { pause, type StreamEvent } from "./events.js";
import type { Http } from "./http.js";
import type { Notes } from "./notes.js";
import { AGAIN, type Message, parseMessage, plain, rawReply, refusal, reply } from "./reply.js";
import { Turns } from "./turns.js";

export { AGAIN };

// A tools/call over HTTP sent straight on the link's session, not through the official client: per call the client
// validates the result against the era's schemas (a failing parse of nothing among them), builds Headers and signals,
// and costs the gateway several times the remote's own work (bench/remote.mjs). The lane speaks what the client
// would have sent on the same connection (its session, its negotiated revision, the envelope it sends) and reads the
// answer as the client would: a JSON reply, or an event stream with the remote's progress, logs and, in the
// handshake era, its questions, answered on the same session. What the lane does not speak it leaves to the client
// before sending anything: a tool with x-mcp-header arguments, a name that needs encoding in a header, a link not
// yet connected. A 2026-07-28 `input_required` answer is asked again through the client, whose rounds put the
// questions (nothing ran to completion on the remote: the answer says it needs input first).

/** Answers one of the remote's questions (ask.ts), as the caller whose call it serves. */
export type Answerer = (method: string, params: unknown) => Promise<Record<string, unknown>>;

const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY];
const ACCEPT = "application/json, text/event-stream";
// As the client: a stream the remote ended after giving an event id is taken up again with Last-Event-ID, after the
// wait the remote asked for (or a second), up to this many times in a row without a new event.
const RESUMES = 2;
// However often the remote gives a new id, a call's stream is taken up at most so many times (its wait may be 0).
const MAX_RESUMES = 100;
const RESUME_WAIT_MS = 1000;
// A call's answers to the remote's questions POSTed at most so many at once, the rest waiting their turn: each may
// need a socket of its own, and one call may ask up to MAX_QUESTIONS.
const ANSWERS_AT_ONCE = 4;

interface Learned {
  envelope: Record<string, unknown> | undefined;
}

// The Mcp-Name header carries the name as it is only when it needs no encoding (the client's own rule).
function headerSafe(name: string): boolean {
  if (name.length === 0 || name !== name.trim() || name.startsWith("=?")) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return false;
  }
  return true;
}

export class Lane {
  readonly #http: Http;
  readonly #url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #notes: Notes;
  readonly #answer: Answerer;
  readonly #learned = new WeakMap<Client, Learned>();
  readonly #plainTools = new WeakMap<Tool, boolean>();
  #next = 0;

  constructor(http: Http, url: URL, headers: Readonly<Record<string, string>>, notes: Notes, answer: Answerer) {
    this.#http = http;
    this.#url = url;
    this.#headers = headers;
    this.#notes = notes;
    this.#answer = answer;
  }

  /** Watch what `client` sends (once per client): the 2026-07-28 envelope the lane then sends as its own. */
  learn(client: Client): void {
    const transport = client.transport as (Transport & { sessionId?: string }) | undefined;
    if (!transport || this.#learned.has(client)) return;
    const learned: Learned = { envelope: undefined };
    this.#learned.set(client, learned);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (learned.envelope === undefined) {
        const meta = plain(plain((message as { params?: unknown }).params)?._meta);
        if (meta && ENVELOPE_KEYS.every((key) => key in meta)) {
          learned.envelope = Object.fromEntries(ENVELOPE_KEYS.map((key) => [key, meta[key]]));
        }
      }
      return send(message, options);
    };
  }

  #plain(tool: Tool): boolean {
    let known = this.#plainTools.get(tool);
    if (known === undefined) {
      known = headerSafe(tool.name) && !JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"');
      this.#plainTools.set(tool, known);
    }
    return known;
  }

  /** The headers of a POST on the link's session, in its negotiated revision. */
  #headersOn(version: string, sessionId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      ...this.#headers,
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-protocol-version": version,
    };
    if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
    return headers;
  }

  /** The call sent straight, or AGAIN when the client must send it (then nothing reached the remote, or it asked). */
  async call(
    client: Client,
    tool: Tool,
    args: unknown,
    meta: Record<string, unknown>,
    signal: AbortSignal,
    timeout: number,
  ): Promise<CallToolResult | typeof AGAIN> {
    const version = client.getNegotiatedProtocolVersion();
    const transport = client.transport as { sessionId?: string } | undefined;
    const learned = this.#learned.get(client);
    const modern = version !== undefined && version >= "2026";
    if (version === undefined || !transport || !this.#plain(tool) || (modern && !learned?.envelope)) return AGAIN;

    const id = `toolsmith-${++this.#next}`;
    const headers = this.#headersOn(version, transport.sessionId);
    if (modern) {
      headers["mcp-method"] = "tools/call";
      headers["mcp-name"] = tool.name;
    }
    const params = { name: tool.name, arguments: args ?? {}, _meta: { ...meta, ...(modern ? learned?.envelope : {}) } };
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

    const stop = new AbortController();
    const cancelled = () => stop.abort(signal.reason);
    signal.addEventListener("abort", cancelled, { once: true });
    const timer = setTimeout(
      () => stop.abort(new SdkError(SdkErrorCode.RequestTimeout, `Request timed out after ${timeout} ms`)),
      timeout,
    );
    let refused = false;
    try {
      const answer = await this.#http.request(this.#url, { method: "POST", headers, body, signal: stop.signal });
      if (answer.ok && answer.sse) {
        const read = (message: Message) => reply(message, modern);
        return await this.#stream(answer.events(), id, read, headers, body, stop, timeout);
      }
      const text = await answer.text();
      // Refused for now (too many calls, or unavailable): answered so, not sent again through the client, which
      // would only double the load on a remote that asked for less. The link stays: its session is sound.
      if (answer.status === 429 || answer.status === 503) {
        const message = refusal(answer, text);
        refused = true;
        answer.refuse(message);
        throw stop.signal.aborted ? stop.signal.reason : new Error(message);
      }
      const message = parseMessage(text);
      if (message?.id === id && (message.result !== undefined || message.error !== undefined)) {
        return reply(message, modern);
      }
      // Refused before it was served (a redirect, a session the remote forgot, sign-in, a media type): the client
      // sends it again and answers as it does (follows the redirect, reports the status).
      if (answer.status >= 300 && answer.status < 500) return AGAIN;
      throw new Error(`HTTP ${answer.status} to tools/call: ${text.slice(0, 200)}`);
    } catch (error) {
      if (stop.signal.aborted) {
        // The handshake era is told in words (a refused call ran nothing); a 2026-07-28 remote learns it from the
        // closed stream.
        const reason = String((stop.signal.reason as Error)?.message ?? "cancelled");
        if (!modern && !refused) this.#cancel(id, headers, reason, timeout);
        throw stop.signal.reason;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", cancelled);
    }
  }

  /**
   * One request of the gateway's own (a task's tools/call, tasks/get, …) sent straight on the link's session, in
   * its era; `capabilities` are added to the 2026-07-28 envelope's. Its result as it came, or its error thrown as a
   * ProtocolError. Questions on its stream are answered as its caller's, as a call's are.
   */
  async request(
    client: Client,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    timeout: number,
    capabilities: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const version = client.getNegotiatedProtocolVersion();
    const transport = client.transport as { sessionId?: string } | undefined;
    const envelope = this.#learned.get(client)?.envelope;
    const modern = version !== undefined && version >= "2026";
    if (version === undefined || !transport || (modern && !envelope)) {
      throw new Error(`not connected: cannot send ${method}`);
    }
    const id = `toolsmith-${++this.#next}`;
    const headers = this.#headersOn(version, transport.sessionId);
    let meta: Record<string, unknown> = {};
    if (modern && envelope) {
      headers["mcp-method"] = method;
      // The header names what the body does (a tool, a task), as the client would send it.
      const named = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
      if (typeof named === "string" && headerSafe(named)) headers["mcp-name"] = named;
      const declared = plain(envelope[CLIENT_CAPABILITIES_META_KEY]) ?? {};
      const extensions = { ...plain(declared.extensions), ...plain(capabilities.extensions) };
      meta = {
        ...envelope,
        [CLIENT_CAPABILITIES_META_KEY]: { ...declared, ...capabilities, extensions },
      };
    }
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: { ...plain(params._meta), ...meta } },
    });
    const stop = new AbortController();
    const cancelled = () => stop.abort(signal.reason);
    if (signal.aborted) cancelled();
    else signal.addEventListener("abort", cancelled, { once: true });
    const timer = setTimeout(
      () => stop.abort(new SdkError(SdkErrorCode.RequestTimeout, `Request timed out after ${timeout} ms`)),
      timeout,
    );
    try {
      const answer = await this.#http.request(this.#url, { method: "POST", headers, body, signal: stop.signal });
      if (answer.ok && answer.sse) {
        return await this.#stream(answer.events(), id, rawReply, headers, body, stop, timeout);
      }
      const text = await answer.text();
      const message = parseMessage(text);
      if (message?.id === id && (message.result !== undefined || message.error !== undefined)) {
        return rawReply(message);
      }
      throw new Error(`HTTP ${answer.status} to ${method}: ${text.slice(0, 200)}`);
    } catch (error) {
      if (stop.signal.aborted) {
        const reason = String((stop.signal.reason as Error)?.message ?? "cancelled");
        if (!modern) this.#cancel(id, headers, reason, timeout);
        throw stop.signal.reason;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", cancelled);
    }
  }

  async #stream<T>(
    body: AsyncGenerator<StreamEvent>,
    id: string,
    read: (message: Message) => T,
    headers: Record<string, string>,
    call: string,
    stop: AbortController,
    timeout: number,
  ): Promise<T> {
    const signal = stop.signal;
    const answers = new Turns(ANSWERS_AT_ONCE);
    let asked = 0;
    let last: string | undefined;
    let wait = RESUME_WAIT_MS;
    let idle = 0;
    let resumes = 0;
    for (;;) {
      const before = last;
      try {
        for await (const event of body) {
          if (event.id !== undefined) last = event.id;
          if (event.retry !== undefined) wait = event.retry;
          const message = event.data ? parseMessage(event.data) : undefined;
          if (!message) continue;
          if (message.id === id && message.method === undefined) return read(message);
          if (typeof message.method !== "string") continue;
          if (message.id === undefined) {
            this.#notes.hear(message);
            continue;
          }
          // Each request is answered with a POST of its own: past the bound the call is cut (and cancelled), not answered.
          if (++asked > MAX_QUESTIONS) {
            stop.abort(new Error(`More than ${MAX_QUESTIONS} questions in one call`));
            throw stop.signal.reason;
          }
          // A question on the call's own stream (the handshake era): answered as its caller, on the same session.
          void this.#respond(message.id, message.method, message.params, headers, answers, signal, timeout);
        }
      } catch (error) {
        if (signal.aborted || last === undefined) throw error;
      }
      if (signal.aborted) throw signal.reason;
      idle = last === before ? idle + 1 : 0;
      if (last === undefined || idle > RESUMES || ++resumes > MAX_RESUMES) {
        throw new Error("the remote's answer stream ended before the call's reply");
      }
      await pause(wait, signal);
      body = await this.#resume(last, headers, call, signal);
    }
  }

  /**
   * The call's stream taken up again after event `last` (a GET with Last-Event-ID, as the client does), under the
   * call's own bounds: its logs reach its caller, its cancellation stops it, its events are bounded as the call's.
   */
  async #resume(
    last: string,
    headers: Record<string, string>,
    call: string,
    signal: AbortSignal,
  ): Promise<AsyncGenerator<StreamEvent>> {
    const { "content-type": _, ...rest } = withoutRouting(headers);
    const resumed = { ...rest, accept: "text/event-stream", "last-event-id": last };
    const answer = await this.#http.request(this.#url, { method: "GET", headers: resumed, call, signal });
    if (answer.ok && answer.sse) return answer.events();
    const text = await answer.text().catch(() => "");
    throw new Error(`HTTP ${answer.status} to the resumed answer stream: ${text.slice(0, 200)}`);
  }

  async #respond(
    id: unknown,
    method: string,
    params: unknown,
    headers: Record<string, string>,
    answers: Turns,
    signal: AbortSignal,
    timeout: number,
  ): Promise<void> {
    let response: Record<string, unknown>;
    try {
      // A ping is answered as the client answers it, on any stream.
      const result = method === "ping" ? {} : await this.#answer(method, params);
      response = { jsonrpc: "2.0", id, result };
    } catch (error) {
      const code = ProtocolError.isInstance(error) ? error.code : -32603;
      const data = ProtocolError.isInstance(error) ? error.data : undefined;
      const text = error instanceof Error ? error.message : String(error);
      response = { jsonrpc: "2.0", id, error: { code, message: text, ...(data === undefined ? {} : { data }) } };
    }
    const body = JSON.stringify(response);
    await answers.take(async () => {
      if (signal.aborted) return;
      // Bounded in time as the call is: a remote that never answers the POST does not keep its socket (and this
      // turn) for ever.
      const answered = await this.#http
        .request(this.#url, {
          method: "POST",
          headers: withoutRouting(headers),
          body,
          signal: AbortSignal.timeout(timeout),
        })
        .catch(() => undefined);
      await answered?.text().catch(() => undefined);
    });
  }

  #cancel(id: string, headers: Record<string, string>, reason: string, timeout: number): void {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason },
    });
    // Bounded in time as the call was: a remote that never answers it does not keep its socket for ever.
    void this.#http
      .request(this.#url, {
        method: "POST",
        headers: withoutRouting(headers),
        body,
        signal: AbortSignal.timeout(timeout),
      })
      .then((answer) => answer.text())
      .catch(() => undefined);
  }
}

function withoutRouting(headers: Record<string, string>): Record<string, string> {
  const { "mcp-method": _method, "mcp-name": _name, ...rest } = headers;
  return rest;
}
