import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";

// What one handshake-era session may hold, whichever engine keeps it: a client decides what it subscribes to and
// what it declares, so both are bounded in bytes (a count alone let one session fill Redis with 8 KiB URIs).

/** The bounds on what one session keeps of its client, in every engine and every connection. */
export const SESSION_BOUNDS = {
  /** The longest URI a subscription may name, in UTF-8 bytes (longer: -32602). */
  subscriptionUriBytes: 2048,
  /** Resource subscriptions one session may hold (more: -32000). */
  subscriptions: 256,
  /** The URIs of one session's subscriptions together, in UTF-8 bytes (more: -32000). */
  subscriptionBytes: 32_768,
} as const;

/** The length of `text` in UTF-8 (a lone surrogate counts as the 3-byte replacement it is sent as). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** -32602 for a subscription whose URI is longer than a session may keep; undefined when it fits. */
export function subscriptionUriRefusal(uri: string): McpError | undefined {
  if (uri.length <= SESSION_BOUNDS.subscriptionUriBytes / 3 || utf8Length(uri) <= SESSION_BOUNDS.subscriptionUriBytes) {
    return undefined;
  }
  return new McpError(
    ErrorCode.InvalidParams,
    `Invalid params: uri is longer than ${SESSION_BOUNDS.subscriptionUriBytes} bytes, the most a subscription may name`,
  );
}

/** -32000: one more subscription would pass the session's bounds. */
export function tooManySubscriptions(): McpError {
  const { subscriptions, subscriptionBytes } = SESSION_BOUNDS;
  return new McpError(
    ErrorCode.ServerError,
    `Too many resource subscriptions on this session (at most ${subscriptions}, with ${subscriptionBytes} bytes of URIs in all); unsubscribe from one first`,
  );
}
