import { MAX_DEPTH, tooDeep, tooDeepText } from "../wire/depth.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { canonicalJson, digest, type Sealer } from "../wire/seal.js";
import { type InputRound, inputRound } from "./ask.js";
import { type AuthInfo, checkedAuth } from "./context.js";
import { type CarriedValue, isCarriedValue, Keeper, type KeepHost } from "./keep.js";

// 2026-07-28 multi-round-trip requests. `requestState` is attacker-controlled, so it is sealed (HMAC) and bound to
// the method, the tool/prompt name or resource URI, the arguments, the caller and an expiry; it carries the answers
// of earlier rounds, since the client sends back only the latest ones, a random id and number for its round, and
// what the handler kept (`ctx.keep`, encrypted: the seal signs, it does not hide) and the progress it reported
// (keep.ts).

const PURPOSE = "toolsmith.requestState.v2";

/** What a retry must match: the request that was asked. */
export interface AskTarget {
  method: string;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  args: unknown;
  auth: AuthInfo | undefined;
}

interface SealedState {
  m: string;
  t: string;
  a: string;
  p: string | null;
  e: number;
  r: Record<string, unknown>;
  /** The round's id: random, one per issued state. */
  i: string;
  /** The round's number: 1 for the first input_required of a request. */
  n: number;
  /** What the handler kept so far (`ctx.keep`), when anything. */
  k?: CarriedValue[];
  /** The highest progress reported so far, when any was. */
  g?: number;
}

function refuse(why: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Invalid requestState: ${why}; send the original request again without it`,
  );
}

// The arguments a round is bound to, as a digest of their canonical JSON.
function argumentsDigest(args: unknown): Promise<string> {
  const text = canonicalJson(args ?? {}, MAX_DEPTH);
  if (text === undefined) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: ${tooDeepText("params.arguments", tooDeep(args) ?? [])}`,
    );
  }
  return digest(text);
}

// Who a state is bound to: a subject, or null for an unauthenticated caller. A principal without a subject matches
// nothing, not even another one (the connection refuses such a principal before this).
function principal(auth: AuthInfo | undefined): string | null {
  return auth === undefined ? null : checkedAuth(auth).subject;
}

function isSealedState(value: unknown): value is SealedState {
  return (
    isPlainObject(value) &&
    typeof value.m === "string" &&
    typeof value.t === "string" &&
    typeof value.a === "string" &&
    (value.p === null || typeof value.p === "string") &&
    typeof value.e === "number" &&
    isPlainObject(value.r) &&
    typeof value.i === "string" &&
    Number.isSafeInteger(value.n) &&
    (value.k === undefined || (Array.isArray(value.k) && value.k.every(isCarriedValue))) &&
    (value.g === undefined || (typeof value.g === "number" && Number.isFinite(value.g)))
  );
}

/**
 * The round a request opens: the answers it brings in `inputResponses`, plus those its sealed `requestState` carries,
 * and what it kept (read from `host`'s engine when resumed). Synchronous when there is no state to open.
 */
export function openRound(
  sealer: Sealer,
  params: Record<string, unknown> | undefined,
  asked: AskTarget,
  now: number,
  host: KeepHost,
): MaybePromise<InputRound> {
  const responses = params?.inputResponses;
  if (responses !== undefined && !isPlainObject(responses)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      "Invalid params: inputResponses must be an object keyed like inputRequests",
    );
  }
  // Answers are kept in the next requestState: sealing walks them.
  const deep = tooDeep(responses);
  if (deep)
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${tooDeepText("params.inputResponses", deep)}`);
  const state = params?.requestState;
  if (state === undefined) return inputRound(responses);
  return (async () => {
    const opened = await sealer.open(PURPOSE, state);
    if (!isSealedState(opened)) throw refuse("it was not issued by this server, or was altered");
    if (opened.e < now) throw refuse("it has expired");
    if (opened.m !== asked.method || opened.t !== asked.target) {
      throw refuse(`it was issued for ${opened.m} "${opened.t}", not ${asked.method} "${asked.target}"`);
    }
    if (opened.p !== principal(asked.auth)) throw refuse("it was issued to another caller");
    if (opened.a !== (await argumentsDigest(asked.args))) throw refuse("the arguments differ from the first request");
    const round = Object.freeze({ id: opened.i, number: opened.n, expiresAt: opened.e });
    const keeper =
      opened.k === undefined
        ? undefined
        : new Keeper({
            from: opened.i,
            values: opened.k,
            host,
            method: asked.method,
            target: asked.target,
          });
    return inputRound({ ...opened.r, ...responses }, round, keeper, opened.g);
  })();
}

/**
 * The `input_required` result for a round whose handler asked what it could not yet be answered; what it kept that
 * does not fit the state waits in `host`'s engine until the state expires.
 */
export async function inputRequired(
  sealer: Sealer,
  round: InputRound,
  asked: AskTarget,
  now: number,
  ttlMs: number,
  host: KeepHost,
): Promise<Record<string, unknown>> {
  const id = crypto.randomUUID();
  const state: SealedState = {
    m: asked.method,
    t: asked.target,
    a: await argumentsDigest(asked.args),
    p: principal(asked.auth),
    e: now + ttlMs,
    r: { ...round.responses },
    i: id,
    n: (round.round?.number ?? 0) + 1,
  };
  const kept = await round.keeper?.carry(host, ttlMs);
  if (kept !== undefined && kept.length > 0) state.k = kept;
  if (round.reported !== undefined) state.g = round.reported;
  return {
    resultType: "input_required",
    inputRequests: { ...round.asked },
    requestState: await sealer.seal(PURPOSE, state),
  };
}
