import { BlockList, isIP } from "node:net";

// Where a server-side fetch may go: only globally routable unicast addresses. IPv6 is an allow-list (2000::/3, the
// global unicast block, minus its special ranges), so IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96),
// loopback, unique-local (fc00::/7), link-local (fe80::/10) and multicast (ff00::/8) all fall outside it.

const NOT_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata endpoints)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255 broadcast
];

const NOT_PUBLIC_V6: readonly (readonly [string, number])[] = [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: an IPv4 address inside, possibly a private one
  ["3fff::", 20], // documentation
];

const notPublic = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_V4) notPublic.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of NOT_PUBLIC_V6) notPublic.addSubnet(network, prefix, "ipv6");
const globalUnicast6 = new BlockList();
globalUnicast6.addSubnet("2000::", 3, "ipv6");

/** Whether `address` (an IPv4 or IPv6 literal, brackets allowed) is a public unicast address a fetch may reach. */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  // A zone id (fe80::1%eth0) names a link: never public.
  if (bare.includes("%")) return false;
  const family = isIP(bare);
  if (family === 4) return !notPublic.check(bare, "ipv4");
  if (family === 6) return globalUnicast6.check(bare, "ipv6") && !notPublic.check(bare, "ipv6");
  return false;
}

/** Whether `hostname` (from a URL, IPv6 in brackets) is a loopback name or literal: `localhost`, 127/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "[::1]") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}
