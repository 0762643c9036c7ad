import type { EventStream } from "./event-stream.js";

// What the dispatcher reads and writes. Two front doors make these: the web-standard handler (Request → Response) and
// the node:http listener, which skips building Request and Response objects on its hot path.

/** An incoming HTTP request. Header names are lower case. */
export interface Incoming {
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /** `scheme://host[:port]`, as the client addressed the server. */
  readonly origin: string;
  /** The peer's network address, when the front door knows it (node:http does): a caller's key for its limits. */
  readonly remoteAddress?: string | undefined;
  header(name: string): string | null;
  /** The body as text; undefined when it is over `limit` bytes. */
  text(limit: number): Promise<string | undefined>;
  /** The body's bytes, read whole; undefined when it is over `limit` bytes (for the user's routes). */
  body(limit: number): Promise<Uint8Array | undefined>;
  /** Call `listener` if the client goes away before the answer is complete. */
  onAbort(listener: () => void): void;
  /** The request as a web-standard Request (headers, no body), for the authenticate hook. */
  request(): Request;
}

/** An HTTP answer: a body of text, an SSE stream, or a user route's own Response (its headers and body). */
export interface Outgoing {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  readonly stream?: EventStream | undefined;
  /** A user route's Response: written as it is (status, headers, body streamed), `status` and `headers` aside. */
  readonly response?: Response | undefined;
  /**
   * A 403 core wrote for want of scopes: every scope the operation needs, which the dispatcher names in its
   * `WWW-Authenticate: Bearer error="insufficient_scope"` challenge (it knows the metadata URL).
   */
  readonly scopes?: readonly string[] | undefined;
}

export const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

export function answer(
  status: number,
  body?: string,
  headers: Readonly<Record<string, string>> = JSON_HEADERS,
): Outgoing {
  return body === undefined ? { status, headers } : { status, headers, body };
}

/** True for an answer (a refusal), as against what a step hands on (a session, a principal). */
export function isOutgoing(value: unknown): value is Outgoing {
  return (
    typeof value === "object" && value !== null && typeof (value as Outgoing).status === "number" && "headers" in value
  );
}
