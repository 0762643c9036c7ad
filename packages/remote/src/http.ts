import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { AbortListeners } from "@toolsmith/core/transport";
import type { StreamEvent } from "./events.js";
import { eventStream, FRAMING_BYTES, readEvents, type StreamBounds } from "./stream-bounds.js";

// The fetch the official client's HTTP transport is given, and the lane's own requests (`request`): node:http on
// kept-alive sockets rather than the global fetch. A JSON answer (most of them) is read as plain chunks, counted
// against its bound, and handed over as text, never as a web stream; an event stream is split and bounded as it
// arrives (stream-bounds.ts), read by the lane as events and given to the client as a web stream of whole events.
// bench/remote.mjs profiled the global fetch at a quarter of the gateway's time: undici itself, its request body
// written in several syscalls, and the web streams of every answer.

/** What a request (its body given) is bounded by, who hears the logs on its event stream, and when it stops. */
export type BoundsFor = (body: unknown) => RequestBounds;

export interface RequestBounds extends StreamBounds {
  /** The signal of the call the request serves: aborted when its caller cancels or its answer is cut. */
  readonly signal?: AbortSignal;
}

/** The part of a Response the client's transport reads. */
interface Answer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: false;
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** An answer to one of the lane's requests: its status and headers, its body read as text or as events. */
export interface Straight {
  readonly status: number;
  readonly ok: boolean;
  /** Whether the body is an event stream. */
  readonly sse: boolean;
  /** A header's value (several joined with ", "), or undefined. */
  header(name: string): string | undefined;
  /** The whole body as text (not for an event stream). */
  text(): Promise<string>;
  /** The events of an event stream, read straight off the socket. */
  events(): AsyncGenerator<StreamEvent>;
  /** End the call the request serves with `message` after the remote's name (its bounds' `cut`); the link is kept. */
  refuse(message: string): void;
}

/** A lane's request: its method, headers and body, the call whose bounds it answers under, and when it stops. */
export interface StraightInit {
  readonly method: "GET" | "POST";
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The body of the call the request serves, when it is not its own (a GET taking up the call's stream). */
  readonly call?: string;
  readonly signal?: AbortSignal;
}

/** An answer as it came off the socket, before anything read its body. */
interface Opened {
  readonly response: IncomingMessage;
  readonly bounds: RequestBounds;
  readonly status: number;
  readonly sse: boolean;
  /** Stop listening for the request's signals (once its answer is read or closed). */
  readonly release: () => void;
}

function headersOf(given: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined) return headers;
  const entries: Iterable<[string, string]> =
    given instanceof Headers || Array.isArray(given)
      ? (given as Iterable<[string, string]>)
      : Object.entries(given as Record<string, string>);
  for (const [name, value] of entries) headers[name.toLowerCase()] = value;
  return headers;
}

function answerHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.set(name, value);
  }
  return headers;
}

/** The whole of a JSON (or any non-stream) answer as text, cut once past its bound. */
function readAll(response: IncomingMessage, bounds: RequestBounds, done: () => void): Promise<string> {
  const limit = bounds.maxBytes + FRAMING_BYTES;
  return new Promise((resolve, reject) => {
    // One buffer, grown by doubling, each chunk copied in: a chunk kept as it came costs some hundred bytes of
    // objects, and a remote writing a byte at a time made a 2 MB answer cost the gateway 838 MB.
    const announced = Number(response.headers["content-length"]);
    let body = Buffer.allocUnsafe(announced > 0 && announced <= limit ? announced : 16 * 1024);
    let counted = 0;
    response.on("data", (chunk: Buffer) => {
      if (counted + chunk.byteLength > limit) {
        const message = `answered with more than ${bounds.maxBytes} bytes`;
        bounds.cut(message);
        response.destroy(new Error(message));
        return;
      }
      if (counted + chunk.byteLength > body.byteLength) {
        const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(body.byteLength * 2, counted + chunk.byteLength)));
        body.copy(grown, 0, 0, counted);
        body = grown;
      }
      chunk.copy(body, counted);
      counted += chunk.byteLength;
    });
    response.once("end", () => {
      done();
      resolve(body.toString("utf8", 0, counted));
    });
    response.once("error", (error) => {
      done();
      reject(error);
    });
    response.once("close", () => {
      if (!response.complete) {
        done();
        reject(new Error("the connection closed before the answer ended"));
      }
    });
  });
}

/** The id of the one request a POST's body carries, if it carries one (a batch, a notification or a response: none). */
function requestIdOf(body: string | undefined): string | number | undefined {
  if (body === undefined || !body.startsWith("{") || !body.includes('"method"')) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const id = message.id;
    return typeof message.method === "string" && (typeof id === "string" || typeof id === "number") ? id : undefined;
  } catch {
    return undefined;
  }
}

/** An answer as the client's transport reads a Response; `replyTo`, the id of the request it answers. */
function answerOf(url: URL, { response, bounds, status, sse, release }: Opened, replyTo?: string | number): Answer {
  const common = {
    ok: status >= 200 && status < 300,
    status,
    statusText: response.statusMessage ?? "",
    headers: answerHeaders(response),
    url: url.href,
    redirected: false as const,
  };
  if (sse) {
    response.once("close", release);
    const stream = eventStream(response, bounds, replyTo);
    return {
      ...common,
      body: stream,
      text: () => new Response(stream).text(),
      json: async () => JSON.parse(await new Response(stream).text()),
    };
  }
  const text = readAll(response, bounds, release);
  // Read or not, the answer is taken off the socket; a failure no one reads is not left unhandled.
  text.catch(() => undefined);
  return { ...common, body: null, text: () => text, json: async () => JSON.parse(await text) };
}

/**
 * How long a kept-alive socket may stay idle before the gateway closes it (a socket in use is not touched). A remote
 * that closes idle sockets without saying when (no `Keep-Alive: timeout` hint: gunicorn after 2 s, uvicorn after 5 s)
 * would otherwise close one just as a call goes out on it, and a tools/call is not sent twice.
 */
const IDLE_SOCKET_MS = 1000;

/** Whether a request's body is a tools/call (JSON.stringify writes its method so): never sent twice. */
function isToolCall(body: string | undefined): boolean {
  return body?.includes('"method":"tools/call"') === true;
}

export class Http {
  readonly #boundsFor: BoundsFor;
  readonly #timeoutMs: number;
  readonly #http = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
  readonly #https = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
  // The requests in flight on each signal, stopped when it aborts.
  readonly #aborts = new AbortListeners();

  /** `timeoutMs` bounds a POST of the client's that answers no call of its own (a response, a notification). */
  constructor(boundsFor: BoundsFor, timeoutMs: number) {
    this.#boundsFor = boundsFor;
    this.#timeoutMs = timeoutMs;
  }

  readonly fetch = ((input: string | URL | Request, init?: RequestInit): Promise<Answer> => {
    const url = input instanceof URL ? input : new URL(typeof input === "string" ? input : input.url);
    const body = typeof init?.body === "string" ? init.body : undefined;
    if (init?.body != null && body === undefined) {
      return Promise.reject(new TypeError("only a string body is sent to a remote"));
    }
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = requestIdOf(body);
    let bounds = this.#boundsFor(body);
    // A POST that is no request (the client's answer to a question, a notification) has no time-out of the
    // client's: bounded here, so that a remote that never answers it does not keep its socket for ever (a timer's
    // signal of its own, as the bounds' signal, tied to nothing that lives longer).
    if (body !== undefined && id === undefined && bounds.signal === undefined) {
      bounds = { ...bounds, signal: AbortSignal.timeout(this.#timeoutMs) };
    }
    return this.#send(url, init?.method ?? "GET", headersOf(init?.headers), body, bounds, signal, false).then(
      (opened) => answerOf(url, opened, opened.sse ? id : undefined),
    );
  }) as unknown as typeof fetch;

  /** One of the lane's requests, its answer read by the lane itself (no Headers, no web stream). */
  request(url: URL, init: StraightInit): Promise<Straight> {
    if (init.signal?.aborted) return Promise.reject(init.signal.reason);
    const bounds = this.#boundsFor(init.call ?? init.body);
    const opened = this.#send(url, init.method, { ...init.headers }, init.body, bounds, init.signal, false);
    return opened.then(({ response, status, sse, release }) => {
      // A JSON answer is taken off the socket whether read or not; an event stream as the lane reads it.
      let text: Promise<string> | undefined;
      if (sse) response.once("close", release);
      else {
        text = readAll(response, bounds, release);
        text.catch(() => undefined);
      }
      return {
        status,
        ok: status >= 200 && status < 300,
        sse,
        header: (name) => {
          const value = response.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(", ") : value;
        },
        text: () => (text ??= readAll(response, bounds, release)),
        events: () => readEvents(response, bounds),
        refuse: (message) => bounds.cut(message),
      };
    });
  }

  #send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    bounds: RequestBounds,
    signal: AbortSignal | undefined,
    retried: boolean,
  ): Promise<Opened> {
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:") return Promise.reject(new TypeError(`cannot reach ${url.protocol} URLs`));
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    // The transport's signal (the connection closing), and the call's own (its caller cancelled): either stops it.
    const stopped = () => (signal?.aborted ? signal : bounds.signal?.aborted ? bounds.signal : undefined);
    const already = stopped();
    if (already) return Promise.reject(already.reason);
    return new Promise((resolve, reject) => {
      const request: ClientRequest = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        agent: secure ? this.#https : this.#http,
      });
      let answered = false;
      const releases = [signal, bounds.signal].map((each) =>
        each ? this.#aborts.add(each, () => request.destroy(each.reason)) : () => {},
      );
      const release = () => {
        for (const each of releases) each();
      };
      request.once("error", (error: NodeJS.ErrnoException) => {
        if (answered) return;
        release();
        const stop = stopped();
        if (stop) reject(stop.reason);
        // A kept-alive socket the remote closed as it was reused: the request is sent once more, unless it is a
        // tools/call, which the remote may have read and run before it closed (a second send would run it twice).
        else if (request.reusedSocket && error.code === "ECONNRESET" && !retried && !isToolCall(body)) {
          this.#send(url, method, headers, body, bounds, signal, true).then(resolve, reject);
        } else reject(error);
      });
      request.once("response", (response: IncomingMessage) => {
        answered = true;
        const sse = (response.headers["content-type"] ?? "").includes("text/event-stream");
        resolve({ response, bounds, status: response.statusCode ?? 0, sse, release });
      });
      request.end(body);
    });
  }

  /** Every kept-alive socket closed. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
