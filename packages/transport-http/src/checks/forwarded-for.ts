import { DefinitionError } from "@toolsmith/core";
import { isIpAddress } from "@toolsmith/core/internal";
import type { RemoteAddress } from "./caller-limits.js";

/** What `forwardedFor` takes. */
export interface ForwardedForOptions {
  /**
   * The proxies in front of this server, each appending the address it was reached from to `X-Forwarded-For`, all
   * trusted (default 1: one load balancer). The client's address is the entry that many from the right.
   */
  readonly hops?: number;
}

// An entry as an address: `1.2.3.4`, `2001:db8::1`, or with a port as some proxies write it (`1.2.3.4:5678`,
// `[2001:db8::1]:443`); undefined for anything else (`unknown`, an obfuscated name, garbage).
function entryAddress(entry: string): string | undefined {
  let text = entry.trim();
  if (text.length > 80) return undefined;
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0 || !/^(?::\d{1,5})?$/.test(text.slice(end + 1))) return undefined;
    text = text.slice(1, end);
  } else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  return isIpAddress(text) ? text : undefined;
}

// The entry `hops` from the right, or the leftmost when there are fewer (every one of them was then written by a
// trusted proxy). Read from the right: a long header costs no more than its last entries.
function entryFromRight(header: string, hops: number): string {
  let end = header.length;
  for (let n = 1; ; n++) {
    const comma = end === 0 ? -1 : header.lastIndexOf(",", end - 1);
    if (comma < 0 || n === hops) return header.slice(comma + 1, end);
    end = comma;
  }
}

/**
 * A `remoteAddress` for a server behind `hops` proxies (default 1) that append to `X-Forwarded-For`: the client's
 * address is the entry that many from the right, the ones before it being whatever the client sent (never
 * believed). Without the header, or when that entry is no IP address, the socket's address is used (all such
 * callers share the proxy's). Use it only when the server can be reached through those proxies alone: a client that
 * reaches it directly writes the header it likes, and picks its own per-caller limits. `listen` sets it when
 * `TOOLSMITH_TRUST_PROXY` is a number of hops.
 * @example
 * ```ts source="examples/http.ts#forwardedFor"
 * await listen(server, { host: "10.0.0.5", allowedHosts: ["mcp.example.com"], remoteAddress: forwardedFor() });
 * ```
 */
export function forwardedFor(options: ForwardedForOptions = {}): RemoteAddress {
  const hops = options.hops ?? 1;
  if (!Number.isSafeInteger(hops) || hops < 1) {
    throw new DefinitionError(`forwardedFor: hops must be a whole number of proxies, 1 or more, not ${String(hops)}`);
  }
  return (request, peer) => {
    const header = request.headers.get("x-forwarded-for");
    if (header === null) return peer;
    return entryAddress(entryFromRight(header, hops)) ?? peer;
  };
}

/**
 * `TOOLSMITH_TRUST_PROXY` as `listen` reads it: unset, empty or `0`, trust no proxy (the socket's address keys each
 * caller); a whole number, that many proxies in front (`forwardedFor`); anything else a `DefinitionError`, as a typo
 * must not quietly leave every client sharing the proxy's address.
 */
export function trustedProxies(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 0;
  if (!/^\d{1,3}$/.test(value.trim())) {
    throw new DefinitionError(
      `TOOLSMITH_TRUST_PROXY must be the number of proxies in front of this server that append X-Forwarded-For (1 for one load balancer; 0 or unset for none), not ${JSON.stringify(value)}`,
    );
  }
  return Number(value.trim());
}

/** What `listen` says on its log when it trusts `hops` proxies, so an operator sees that clients must not bypass them. */
export function trustSaid(hops: number): string {
  const them = hops === 1 ? "1 proxy" : `${hops} proxies`;
  return `client addresses read from X-Forwarded-For, ${them} in front trusted (TOOLSMITH_TRUST_PROXY): reach this server through ${hops === 1 ? "it" : "them"} alone\n`;
}
