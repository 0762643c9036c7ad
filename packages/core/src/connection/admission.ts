import { type InputRound, inputRound } from "../context/ask.js";
import type { RequestContextImpl } from "../context/request-context.js";
import { check, issuesText, RequestMeta } from "../protocol/inbound.js";
import { featuresOf, type RevisionFeatures, STATELESS_REVISIONS } from "../protocol/revision.js";
import {
  HANDSHAKE_VERSIONS,
  isHandshakeVersion,
  isStatelessVersion,
  MetaKey,
  type ProtocolVersion,
  STATELESS_VERSIONS,
} from "../protocol/versions.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { InFlight, Params, Reply } from "./in-flight.js";
import type { Method } from "./methods.js";

// 2026-07-28: each request is admitted on its own `_meta`; nothing of an earlier request vouches for it.

const ALL_VERSIONS: readonly ProtocolVersion[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];

/** The protocol version a request's `_meta` names (anything, or undefined without one). */
export function requestedVersion(meta: unknown): unknown {
  return isPlainObject(meta) ? meta[MetaKey.protocolVersion] : undefined;
}

/** The revision a stateless request is served in: the one it names, else the latest (whose terms its error uses). */
export function statelessRevision(requested: unknown): RevisionFeatures {
  return featuresOf(isStatelessVersion(requested) ? requested : STATELESS_VERSIONS[0]);
}

/**
 * A request's `_meta`, checked: -32602 when it is missing or malformed, -32022 when it names a revision that is not
 * served statelessly (a handshake one is served after `initialize`, where the transport serves that era: `handshake`).
 */
export function admittedMeta(meta: unknown, requested: unknown, handshake = true): RequestMeta {
  if (!isPlainObject(meta) || typeof requested !== "string") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Missing params._meta["${MetaKey.protocolVersion}"]: every ${STATELESS_REVISIONS} request must carry it`,
    );
  }
  if (!isStatelessVersion(requested)) {
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      handshake && isHandshakeVersion(requested)
        ? `Unsupported protocol version in _meta: ${requested} is served after initialize; per-request _meta is for ${STATELESS_REVISIONS}`
        : `Unsupported protocol version: ${requested}`,
      { supported: handshake ? ALL_VERSIONS : STATELESS_VERSIONS, requested },
    );
  }
  const parsed = check(RequestMeta, meta);
  if (!parsed.success) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid params._meta: ${issuesText(parsed.error.issues)}`);
  }
  return parsed.data;
}

/** The round a request starts in: a fresh one for a first call of a method that may ask; a retry's opens later. */
export function firstRound(handler: Method, params: Params): InputRound | undefined {
  return handler.asks && params?.requestState === undefined && params?.inputResponses === undefined
    ? inputRound(undefined)
    : undefined;
}

/**
 * Serve an admitted request. A method that may ask runs in a round of `input_required`: a first call in its fresh
 * round (synchronously), a retry once the `requestState` it brought is opened (asynchronously, to check its seal).
 */
export function serveRound(
  inFlight: InFlight,
  handler: Method,
  method: string,
  params: Params,
  ctx: RequestContextImpl,
): MaybePromise<Reply> {
  if (!handler.asks) return inFlight.run(handler, method, params, ctx, false);
  if (ctx.inputs !== undefined) return inFlight.run(handler, method, params, ctx, true);
  return inFlight.retry(handler, method, params, ctx, ctx.auth);
}
