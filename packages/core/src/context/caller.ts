// Who a per-caller limit counts against: one definition for the transports' sessions and streams and core's tasks.

/**
 * How many leading bits of an IPv6 address name one caller. One site is given a /56 or a /48 (a host a /64), so
 * counting each address apart would let one client take 2^64 callers' shares; a /56 is what one customer holds.
 */
export const IPV6_CALLER_BITS = 56;

/**
 * The caller's key for per-caller limits: `subject <s>` when authenticated, else `address <a>` from the peer's
 * network address (asked only then, and read by `callerAddress`); undefined when neither is known.
 */
export function callerKey(
  subject: string | undefined,
  address: (() => string | undefined) | undefined,
): string | undefined {
  if (subject !== undefined) return `subject ${subject}`;
  const at = address?.();
  return at === undefined ? undefined : `address ${callerAddress(at)}`;
}

/**
 * An address as one caller: an IPv4 address as it is (also when written IPv4-mapped, `::ffff:1.2.3.4`, as a
 * dual-stack socket gives it), an IPv6 address as its /56 (`2001:db8:77::/56`, whatever its spelling or zone);
 * anything else (what a `remoteAddress` option returned) unchanged.
 */
export function callerAddress(address: string): string {
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  const kept = [...groups.slice(0, IPV6_CALLER_BITS >> 4)];
  const partial = IPV6_CALLER_BITS & 15;
  if (partial > 0) kept.push((groups[kept.length] ?? 0) & (0xffff << (16 - partial)) & 0xffff);
  while (kept.at(-1) === 0) kept.pop();
  return `${kept.map((group) => group.toString(16)).join(":")}::/${IPV6_CALLER_BITS}`;
}

/**
 * True for an IP address as a peer's address is written: IPv4 dotted (each byte at most 255) or IPv6 (a zone and an
 * IPv4 tail allowed), no port, no brackets. What a proxy forwards is checked with it before it keys anything.
 */
export function isIpAddress(text: string): boolean {
  const v4 = IPV4.exec(text);
  if (v4 !== null) return v4.slice(1).every((byte) => Number(byte) <= 255);
  return ipv6Groups(text) !== undefined;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

// An IPv6 address's eight 16-bit groups (a zone, `%eth0`, ignored; an IPv4 tail allowed); undefined when not one.
function ipv6Groups(text: string): number[] | undefined {
  if (text.length > 64 || !text.includes(":")) return undefined;
  const bare = text.split("%")[0] as string;
  const halves = bare.split("::");
  if (halves.length > 2) return undefined;
  const parts = halves.map((half) => (half === "" ? [] : half.split(":")));
  const groups = parts.map((list, i) => groupsOf(list, i === parts.length - 1));
  if (groups.some((list) => list === undefined)) return undefined;
  const [head = [], tail = []] = groups as number[][];
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  return missing < 1 ? undefined : [...head, ...new Array<number>(missing).fill(0), ...tail];
}

// Hex groups, the last of the address's last part possibly an IPv4 address (two groups).
function groupsOf(parts: string[], last: boolean): number[] | undefined {
  const out: number[] = [];
  for (const [i, part] of parts.entries()) {
    const v4 = last && i === parts.length - 1 ? IPV4.exec(part) : null;
    if (v4 !== null) {
      const bytes = v4.slice(1).map(Number);
      if (bytes.some((byte) => byte > 255)) return undefined;
      const [a = 0, b = 0, c = 0, d = 0] = bytes;
      out.push((a << 8) | b, (c << 8) | d);
    } else if (HEX_GROUP.test(part)) out.push(Number.parseInt(part, 16));
    else return undefined;
  }
  return out;
}
