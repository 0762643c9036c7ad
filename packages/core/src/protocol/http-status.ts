import { ErrorCode } from "../wire/json-rpc.js";
import type { Era } from "./era.js";

/**
 * The HTTP status of a reply the core wrote (`code` undefined for a result), per era: 2026-07-28 gives each
 * refusal its status; the handshake era answers everything but unparseable input with 200. A handler's own
 * errors are answers, sent with 200. A transport's own refusals choose their status where they are made.
 * `retryAfterSeconds` (the delivery's, set for a request the engine could not serve): 503, in either era; a token
 * short of a scope: 403, in either era (RFC 6750 §3.1; the transport adds its `WWW-Authenticate` challenge).
 */
export function httpStatusOf(code: number | undefined, era: Era, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined) return 503;
  if (code === ErrorCode.InsufficientScope) return 403;
  if (era === "handshake") return code === ErrorCode.ParseError || code === ErrorCode.InvalidRequest ? 400 : 200;
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.InternalError:
      return 500;
    default:
      return 200;
  }
}
