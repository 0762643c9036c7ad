/**
 * A request's W3C trace context, from its `params._meta` (`traceparent`, `tracestate`, `baggage`: the keys the
 * 2026-07-28 specification reserves, and which clients of every revision already send there). Only well-formed
 * values are kept: a malformed `traceparent` (and with it its `tracestate`) is dropped, never passed on.
 */
export interface TraceContext {
  /** `version-traceid-parentid-flags`, as W3C Trace Context writes it. */
  readonly traceparent?: string;
  /** Vendor entries that go with `traceparent`; only present when it is. */
  readonly tracestate?: string;
  /** W3C Baggage: `key=value` members, comma-separated. */
  readonly baggage?: string;
}

// version 00 is exactly 55 characters; a later version may add fields after a dash (W3C Trace Context, §3.2).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-[\x21-\x7e]*)?$/;
const ZERO_TRACE = "00000000000000000000000000000000";
const ZERO_PARENT = "0000000000000000";
/** Longest `traceparent` kept (a future version's extra fields included). */
export const MAX_TRACEPARENT = 256;
/** Longest `tracestate` kept: what W3C asks every vendor to pass on (32 members, 512 characters). */
export const MAX_TRACESTATE = 512;
/** Longest `baggage` kept: W3C Baggage's limit for the whole header (8192 bytes). */
export const MAX_BAGGAGE = 8192;
// Header values are printable ASCII and spaces or tabs (both formats percent-encode anything else).
const HEADER_TEXT = /^[\t\x20-\x7e]*$/;

/** A `traceparent` W3C Trace Context accepts: known layout, not version ff, no all-zero ids. */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== "string" || value.length > MAX_TRACEPARENT) return false;
  const match = TRACEPARENT.exec(value);
  if (match === null) return false;
  const [, version, traceId, parentId, rest] = match;
  if (version === "ff" || traceId === ZERO_TRACE || parentId === ZERO_PARENT) return false;
  // Version 00 has exactly four fields.
  return version !== "00" || rest === undefined;
}

function headerText(value: unknown, max: number): string | undefined {
  return typeof value === "string" && value.length <= max && value.trim() !== "" && HEADER_TEXT.test(value)
    ? value
    : undefined;
}

/** The trace context `_meta` carries, or undefined when it carries none that is well-formed. */
export function traceOf(meta: Readonly<Record<string, unknown>> | undefined): TraceContext | undefined {
  // The common case (no trace keys) allocates nothing.
  if (meta === undefined || (meta.traceparent === undefined && meta.baggage === undefined)) return undefined;
  const trace: { -readonly [K in keyof TraceContext]: TraceContext[K] } = {};
  if (isTraceparent(meta.traceparent)) {
    trace.traceparent = meta.traceparent;
    const state = headerText(meta.tracestate, MAX_TRACESTATE);
    if (state !== undefined) trace.tracestate = state;
  }
  const baggage = headerText(meta.baggage, MAX_BAGGAGE);
  if (baggage !== undefined) trace.baggage = baggage;
  return trace.traceparent === undefined && trace.baggage === undefined ? undefined : trace;
}
