import { type Agent, type IncomingMessage, request, type ServerResponse } from "node:http";
import { AnswerWatch, onlyAnswers, requestIds } from "./answer-watch.js";

/** What `forward` needs of the proxy. */
export interface Route {
  /** The next backend in rotation that this request has not tried, advancing the rotation; undefined: none. */
  pick(tried: ReadonlySet<number>): number | undefined;
  url(index: number): URL;
  agent(index: number): Agent;
  /** The request goes to backend `index` (again for each retry). */
  attempt(index: number): void;
  /** A connection to it could not be opened: out of rotation at once. */
  refused(index: number, reason: string): void;
  /** Its answer was cut: check its health now. */
  cut(index: number): void;
  /** An exchange with backend `index` is open; `stop` cuts it should the backend stop answering. Undo: the result. */
  hold(index: number, stop: () => void): () => void;
  /** A connection not open after this long never will be: it counts as refused. */
  readonly connectTimeoutMs: number;
  /** Body bytes kept: to resend it when a connection could not be opened, and to name its requests' ids. */
  readonly keepBodyBytes: number;
  /** Send the client's `Host` on rather than the backend's own. */
  readonly keepHost: boolean;
}

// The request's hop-by-hop headers are the connection's own, not the message's (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"]);

function endToEnd(headers: IncomingMessage["headers"]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

function forwarded(req: IncomingMessage, backend: URL, keepHost: boolean): Record<string, string | string[]> {
  const out = endToEnd(req.headers);
  // The backend accepts only its own Host (DNS rebinding protection); the client's goes on as X-Forwarded-Host.
  if (req.headers.host !== undefined) out["x-forwarded-host"] = req.headers.host;
  out["x-forwarded-for"] = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
  out["x-forwarded-proto"] = "http";
  if (!keepHost || req.headers.host === undefined) out.host = backend.host;
  return out;
}

/**
 * Send one request to the backend `first`, streaming both ways. A connection that cannot be opened is tried on the
 * next backend (nothing reached the first); once it is open, nothing is sent again. A backend that dies mid-answer
 * cuts the client's stream, but a POST of no session answered by SSE is told first, one JSON-RPC error per request
 * still unanswered, as nothing else would answer it.
 */
export function forward(req: IncomingMessage, res: ServerResponse, first: number, route: Route): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflow = false;
  let ended = false;
  let done = false;
  const tried = new Set<number>();
  let upstream: ReturnType<typeof request> | undefined;

  const finish = (how: () => void) => {
    if (done) return;
    done = true;
    how();
  };
  const unreachable = (reached: boolean, hung: boolean) =>
    finish(() => {
      // Nothing reached a backend: safe to send again, so the client is told to.
      if (!reached) res.writeHead(503, { "content-type": "text/plain", "retry-after": "1" });
      else res.writeHead(hung ? 504 : 502, { "content-type": "text/plain" });
      res.end(!reached ? "no backend reachable\n" : hung ? "backend stopped answering\n" : "backend unreachable\n");
    });

  req.on("data", (chunk: Buffer) => {
    if (!overflow) {
      kept += chunk.length;
      overflow = kept > route.keepBodyBytes;
      if (overflow) chunks.length = 0;
      else chunks.push(chunk);
    }
    const to = upstream;
    if (to && !to.write(chunk)) {
      req.pause();
      to.once("drain", () => req.resume());
    }
  });
  req.once("end", () => {
    ended = true;
    upstream?.end();
  });
  // The client went away: so does the request to the backend (a stream is given up, a call cancelled).
  res.once("close", () => {
    done = true;
    if (!res.writableFinished) upstream?.destroy();
  });

  const attempt = (index: number) => {
    tried.add(index);
    route.attempt(index);
    const url = route.url(index);
    const up = request({
      agent: route.agent(index),
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: req.url,
      headers: forwarded(req, url, route.keepHost),
    });
    upstream = up;
    // Open: from here the backend may act on what it is sent, so the request is never sent again.
    let reached = false;
    let hung = false;
    let answering = false;
    up.once("socket", (socket) => {
      if (!socket.connecting) {
        reached = true;
        return;
      }
      // A blackholed address never answers the SYN: give up as for a refused connection (nothing was sent).
      const timer = setTimeout(() => up.destroy(new Error("connect timed out")), route.connectTimeoutMs);
      socket.once("connect", () => {
        reached = true;
        clearTimeout(timer);
      });
      socket.once("close", () => clearTimeout(timer));
    });
    // The health checks found the backend stopped (probes unanswered): cut what it holds, as if it had died.
    const release = route.hold(index, () => {
      hung = true;
      up.destroy(new Error("backend stopped answering"));
    });
    up.once("close", release);
    for (const chunk of chunks) up.write(chunk);
    if (ended) up.end();
    else req.resume();

    up.once("error", (error: NodeJS.ErrnoException) => {
      // Once answering, a cut is the answer's to handle (`died`, below).
      if (done || up !== upstream || answering) return;
      if (!reached) {
        route.refused(index, error.code ?? error.message);
        const next = overflow ? undefined : route.pick(tried);
        if (next !== undefined) return attempt(next);
      } else {
        route.cut(index);
        // Only the client's answers: the process that died may have lost them before passing them on to the one
        // that asked, and the client does not send them again (the question would wait out the client's time-out).
        // Another process passes them on; one that got through already is dropped there as an answer to nothing.
        const answers = ended && !overflow && onlyAnswers(Buffer.concat(chunks));
        const next = answers ? route.pick(tried) : undefined;
        if (next !== undefined) return attempt(next);
      }
      if (!res.headersSent) unreachable(reached, hung);
      else finish(() => res.destroy());
    });
    up.once("response", (answer) => {
      if (done) return answer.destroy();
      answering = true;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // Headers now, not with the first chunk: an SSE stream may stay quiet for a long time.
      res.flushHeaders();
      const sse = /^text\/event-stream/i.test(answer.headers["content-type"] ?? "");
      const watch =
        sse && req.method === "POST" && req.headers["mcp-session-id"] === undefined ? new AnswerWatch() : undefined;
      answer.on("data", (chunk: Buffer) => {
        watch?.feed(chunk);
        if (!res.write(chunk)) {
          answer.pause();
          res.once("drain", () => answer.resume());
        }
      });
      answer.once("end", () => finish(() => res.end()));
      const died = () => {
        route.cut(index);
        const ids = watch && ended && !overflow ? requestIds(Buffer.concat(chunks)) : [];
        // A session's requests are answered by the server itself, on the stream its client resumes.
        if (watch && ids.length > 0) finish(() => res.end(watch.ending(ids)));
        else finish(() => res.destroy());
      };
      answer.once("aborted", died);
      answer.once("error", died);
    });
  };
  attempt(first);
}
