/** Protocol revisions that open with `initialize` (newest first). */
export const HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** Protocol revisions in which every request carries its own `_meta` (newest first). */
export const STATELESS_VERSIONS = ["2026-07-28"] as const;

export type HandshakeVersion = (typeof HANDSHAKE_VERSIONS)[number];
export type StatelessVersion = (typeof STATELESS_VERSIONS)[number];
export type ProtocolVersion = HandshakeVersion | StatelessVersion;

/** The newest handshake revision, answered when a client asks for one we do not speak. */
export const LATEST_HANDSHAKE_VERSION: HandshakeVersion = HANDSHAKE_VERSIONS[0];

/** The newest stateless revision: what a client pins to speak the stateless era. */
export const LATEST_STATELESS_VERSION: StatelessVersion = STATELESS_VERSIONS[0];

/** The `_meta` keys of 2026-07-28. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

export function isHandshakeVersion(value: unknown): value is HandshakeVersion {
  return (HANDSHAKE_VERSIONS as readonly unknown[]).includes(value);
}

export function isStatelessVersion(value: unknown): value is StatelessVersion {
  return (STATELESS_VERSIONS as readonly unknown[]).includes(value);
}

/** Echo a supported handshake revision, else offer the newest (the client decides whether to hang up). */
export function negotiateHandshakeVersion(requested: string): HandshakeVersion {
  return isHandshakeVersion(requested) ? requested : LATEST_HANDSHAKE_VERSION;
}
