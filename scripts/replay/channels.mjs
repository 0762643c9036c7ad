// One way to speak to the fixture in either era over either transport, so one conversation serves both: `msg` makes
// a request (with 2026-07-28 `_meta` when stateless), `send` sends it and records the exchange, answering the server's
// own requests (`answer`) as a client would.

export const STATELESS = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";
const CLIENT_INFO = { name: "replay", version: "1.0.0" };
export const CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };

/** What the replay's client answers to the server's own requests (and to 2026-07-28 input requests). */
export function clientAnswer(method, params) {
  if (method === "elicitation/create") {
    return params?.message === "Go on?"
      ? { action: "accept", content: { go: true } }
      : { action: "accept", content: { name: "Ada" } };
  }
  if (method === "sampling/createMessage") {
    return { role: "assistant", content: { type: "text", text: "short" }, model: "replay-model" };
  }
  if (method === "roots/list") return { roots: [{ uri: "file:///replay/root", name: "root" }] };
  return undefined;
}

/** The JSON-RPC reply to a server request `message`. */
export function answerTo(message) {
  const result = clientAnswer(message.method, message.params);
  return result === undefined
    ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
    : { jsonrpc: "2.0", id: message.id, result };
}

class Channel {
  #next = 1;

  /** `version`: the revision spoken (a handshake one is asked at `initialize`). */
  constructor(version) {
    this.version = version;
    this.era = version === STATELESS ? "stateless" : "handshake";
    this.capabilities = CAPABILITIES;
  }

  /** `_meta` of a 2026-07-28 request (`extra` merged in), as a client sends it. */
  meta(extra = {}, capabilities = this.capabilities) {
    return {
      "io.modelcontextprotocol/protocolVersion": this.version,
      "io.modelcontextprotocol/clientCapabilities": capabilities,
      "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
      ...extra,
    };
  }

  /** A request with the next id; stateless requests carry `_meta` (`options.meta` is merged into it in both eras). */
  msg(method, params, options = {}) {
    const message = { jsonrpc: "2.0", id: this.#next++, method };
    const meta =
      this.era === "stateless" && options.bare !== true ? this.meta(options.meta, options.capabilities) : options.meta;
    if (params !== undefined || meta !== undefined) message.params = { ...params, ...(meta ? { _meta: meta } : {}) };
    return message;
  }

  /** `initialize` as a client of `version` sends it. */
  initialize(capabilities = this.capabilities) {
    return this.msg(
      "initialize",
      { protocolVersion: this.version, capabilities, clientInfo: CLIENT_INFO },
      { bare: true },
    );
  }
}

export class StdioChannel extends Channel {
  constructor(peer, version) {
    super(version);
    this.peer = peer;
  }

  /** Send `message` and record until its reply (`options.until`: another end; null for none). */
  send(label, message, options = {}) {
    return this.peer.exchange(label, message, { answer: answerTo, ...options });
  }
}

// The 2026-07-28 routing headers: Mcp-Name for the methods that name something.
const NAMED = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export class HttpChannel extends Channel {
  /** `route(n)`: the process the n-th POST goes to (default the first). */
  constructor(peer, version, options = {}) {
    super(version);
    this.peer = peer;
    this.session = undefined;
    this.auth = options.auth;
    this.route = options.route ?? (() => 0);
    this.posts = 0;
  }

  /** The headers a client of this channel sends with `message`. */
  headers(message, extra = {}) {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.auth) headers.authorization = `Bearer ${this.auth}`;
    if (this.session) headers["mcp-session-id"] = this.session;
    const initialize = message?.method === "initialize";
    if (this.era === "stateless" || (this.session && !initialize)) headers["mcp-protocol-version"] = this.version;
    if (this.era === "stateless" && typeof message?.method === "string") {
      headers["mcp-method"] = message.method;
      const field = NAMED[message.method];
      const named = field && message.params?.[field];
      if (typeof named === "string") headers["mcp-name"] = named;
      const region = message.params?.arguments?.region;
      if (message.method === "tools/call" && typeof region === "string") headers["mcp-param-region"] = region;
    }
    const merged = { ...headers, ...extra };
    for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
    return merged;
  }

  /**
   * POST `message` (an object or raw text) and record the exchange; the server's requests on its stream are answered
   * by POSTs of their own. Resolves to the reply (or undefined). `options`: headers (merged), to (a process),
   * stream (resolve to the open exchange once headers came, leaving the body to the caller), answerTo.
   */
  async send(label, message, options = {}) {
    const body = typeof message === "string" ? message : JSON.stringify(message);
    const to = options.to ?? this.route(this.posts++);
    const exchange = this.peer.open(label, { headers: this.headers(message, options.headers), body, to });
    const response = await exchange.response;
    if (message?.method === "initialize" && response.headers["mcp-session-id"]) {
      this.session = response.headers["mcp-session-id"];
    }
    if (options.stream) return exchange;
    if (response.events === undefined) {
      await exchange.ended();
      return parse(response.body);
    }
    return this.follow(label, exchange, message?.id, options);
  }

  /** Read an open stream to its end, answering the server's requests; the reply to `id`. */
  async follow(label, exchange, id, options = {}) {
    let seen = 0;
    let reply;
    for (;;) {
      const state = await exchange.next(() => exchange.events.length > seen);
      for (const message of exchange.messagesFrom(seen)) {
        if (message.method !== undefined && message.id !== undefined) {
          const to = options.answerTo ?? this.route(this.posts++);
          await this.send(`${label} › answer ${message.method}`, answerTo(message), { to });
        } else if (message.method === undefined && JSON.stringify(message.id) === JSON.stringify(id)) reply = message;
      }
      seen = exchange.events.length;
      if (state !== true) return reply;
    }
  }

  /** A request of another method than POST (GET, DELETE, …) with this channel's session headers. */
  async other(label, method, options = {}) {
    const headers = this.headers(undefined, options.headers);
    delete headers["content-type"];
    if (method === "GET") headers.accept = "text/event-stream";
    const exchange = this.peer.open(label, { method, headers, to: options.to ?? this.route(this.posts++) });
    await exchange.response;
    if (!options.stream) await exchange.ended();
    return exchange;
  }
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
