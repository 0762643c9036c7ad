import type { ServerResponse } from "node:http";
import { pipeline, Readable, Transform } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

// A user route's Response on node:http. Framing is node's own: a handler's Transfer-Encoding is never sent, and
// its Content-Length only as a promise the body keeps, so no body can run into the next response on the connection.

// Statuses node sends without a body, where Content-Length describes what a GET would get.
const NO_BODY = new Set([204, 304]);

// The body passed through as it is, the connection cut (by pipeline) if it is not `declared` bytes long.
function exactly(declared: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      done(sent > declared ? new RangeError(`body longer than its Content-Length ${declared}`) : null, chunk);
    },
    flush(done) {
      done(sent < declared ? new RangeError(`body shorter than its Content-Length ${declared}`) : null);
    },
  });
}

/** Write a user route's Response as it is: status, headers (each Set-Cookie kept apart), the body streamed. */
export function writeResponse(res: ServerResponse, response: Response): void {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie" && name !== "transfer-encoding" && name !== "content-length") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const length = response.headers.get("content-length");
  const bodiless = res.req.method === "HEAD" || NO_BODY.has(response.status);
  // One whole number, or it is not sent (node frames the body itself, chunked).
  const declared = length !== null && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
  if (declared !== undefined && (bodiless || response.body || declared === 0))
    headers["content-length"] = String(declared);
  try {
    res.writeHead(response.status, headers);
    if (!response.body || bodiless) {
      void response.body?.cancel().catch(() => undefined);
      res.end();
      return;
    }
    // A body that never ends holds nothing once its client (or close()) ends the connection: pipeline cancels it.
    const body = Readable.fromWeb(response.body as NodeReadableStream);
    if (declared === undefined) pipeline(body, res, () => undefined);
    else pipeline(body, exactly(declared), res, () => undefined);
  } catch {
    // What node:http cannot send (a header it refuses) cuts the connection: the request is never left hanging.
    res.destroy();
  }
}
