import { ErrorCode } from "@toolsmith/core";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { refuse } from "../exchange/refusals.js";

// What a request must declare before its body is read or its stream opened: media types, encoding, size.

// The media types an Accept header lists (lower case, no parameters).
function accepted(header: string | null): string[] {
  if (header === null) return [];
  return header.split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

function allows(types: readonly string[], type: string): boolean {
  return types.some((media) => media === type || media === "*/*" || media === `${type.split("/")[0]}/*`);
}

/** True when the request's Accept header lists `type`, itself or by a wildcard. */
export function accepts(request: Incoming, type: string): boolean {
  return allows(accepted(request.header("accept")), type);
}

/** The 413 of a body over `limit` bytes, declared or read. */
export function tooLarge(limit: number): Outgoing {
  return refuse(413, null, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
}

// A client sends the same Accept on every POST: its verdict is kept for the next one, not parsed again.
let lastAccept: string | null = null;
let lastAcceptOk = false;

// True when an Accept header lists both JSON and SSE (itself or by a wildcard).
function acceptsBoth(header: string | null): boolean {
  if (header === lastAccept && header !== null) return lastAcceptOk;
  const types = accepted(header);
  const ok = allows(types, "application/json") && allows(types, "text/event-stream");
  lastAccept = header;
  lastAcceptOk = ok;
  return ok;
}

/** Why a POST is refused before its body is read (content type, Accept, encoding, declared size), if it is. */
export function postRefusal(request: Incoming, maxBodyBytes: number): Outgoing | undefined {
  const type = request.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    return refuse(415, null, ErrorCode.InvalidRequest, "Content-Type must be application/json");
  }
  if (!acceptsBoth(request.header("accept"))) {
    return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list application/json and text/event-stream");
  }
  const encoding = request.header("content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") {
    // A compressed body would only fail to parse: say what is wrong (and never inflate a client's bytes).
    return refuse(
      415,
      null,
      ErrorCode.InvalidRequest,
      `Content-Encoding ${encoding} is not accepted; send the body uncompressed`,
    );
  }
  const declared = Number(request.header("content-length") ?? Number.NaN);
  return declared > maxBodyBytes ? tooLarge(maxBodyBytes) : undefined;
}
