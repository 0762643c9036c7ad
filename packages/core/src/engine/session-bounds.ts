import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import type { Implementation } from "../wire/types.js";

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
  /** The client's capabilities as kept: at most this many bytes of JSON, the shallowest entries first. */
  capabilitiesBytes: 4096,
  /** Each of `name`, `version` and `title` of the client's info as kept, in UTF-16 code units (cut there). */
  clientInfoChars: 256,
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

/** What a session keeps of the client's info: its name, version and title, each cut to a bounded length. */
export function keptClientInfo(info: unknown): Implementation {
  const given = isPlainObject(info) ? info : {};
  const kept: Implementation = { name: cut(given.name), version: cut(given.version) };
  if (typeof given.title === "string") kept.title = cut(given.title);
  return kept;
}

function cut(value: unknown): string {
  if (typeof value !== "string") return "";
  const max = SESSION_BOUNDS.clientInfoChars;
  if (value.length <= max) return value;
  // Never half a surrogate pair.
  const end = (value.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return value.slice(0, end);
}

/**
 * What a session keeps of the client's capabilities: a copy of at most `SESSION_BOUNDS.capabilitiesBytes` of JSON,
 * taken breadth first and in turns (every capability's name before any capability's settings, the first entry of
 * each before the second of any, so the flags the server reads, such as `elicitation.url` or `sampling.tools`, come
 * before anything deeper or later), an entry that does not fit left out. An ordinary declaration is kept as sent.
 */
export function keptCapabilities(capabilities: unknown): Readonly<Record<string, unknown>> {
  const kept: Record<string, unknown> = {};
  if (!isPlainObject(capabilities)) return kept;
  // The top level's braces are paid for first.
  let budget = SESSION_BOUNDS.capabilitiesBytes - 2;
  let level: Copying[] = [copying(capabilities, kept)];
  while (level.length > 0 && budget > 0) {
    const next: Copying[] = [];
    let open = level;
    for (let turn = 0; open.length > 0 && budget > 0; turn++) {
      open = open.filter((container) => {
        if (turn >= container.entries.length || container.ended) return false;
        const [key, value] = container.entries[turn] as [string, unknown];
        const copy = emptyOf(value);
        const text = copy === undefined ? jsonScalar(value) : Array.isArray(copy) ? "[]" : "{}";
        if (text === undefined) return true;
        const isArray = Array.isArray(container.into);
        // Its separator, its key (an object's) and its value (a container's braces only: its entries pay for
        // themselves at the next level).
        const cost = 1 + (isArray ? 0 : utf8Length(JSON.stringify(key)) + 1) + utf8Length(text);
        if (cost > budget) {
          // An array's items keep their places: it ends at the first that does not fit.
          container.ended = isArray;
          return !isArray;
        }
        budget -= cost;
        const stored = copy ?? value;
        if (isArray) (container.into as unknown[]).push(stored);
        else
          Object.defineProperty(container.into, key, {
            value: stored,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        if (copy !== undefined) next.push(copying(value, copy));
        return true;
      });
    }
    level = next;
  }
  return kept;
}

/** A container being copied: its entries, where they go, and whether it ended (an array past the budget). */
interface Copying {
  readonly entries: readonly [string, unknown][];
  readonly into: Record<string, unknown> | unknown[];
  ended: boolean;
}

function copying(from: unknown, into: Record<string, unknown> | unknown[]): Copying {
  const entries = Array.isArray(from)
    ? from.map((value, index): [string, unknown] => [String(index), value])
    : Object.entries(from as object);
  return { entries, into, ended: false };
}

function emptyOf(value: unknown): Record<string, unknown> | unknown[] | undefined {
  if (Array.isArray(value)) return [];
  return isPlainObject(value) ? {} : undefined;
}

function jsonScalar(value: unknown): string | undefined {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return JSON.stringify(value);
  return undefined;
}
