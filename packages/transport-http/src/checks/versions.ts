import { type Era, ErrorCode, LATEST_STATELESS_VERSION, type ProtocolVersion } from "@toolsmith/core";
import { BATCH_REVISIONS, eraOf, isPlainObject, messageIdText } from "@toolsmith/core/internal";
import { errorLine, featuresOf, MetaKey, STATELESS_VERSIONS } from "@toolsmith/core/transport";
import { answer, type Outgoing } from "../exchange/exchange.js";
import { isRequest, refuse } from "../exchange/refusals.js";

// Which era a request chose, and whether its MCP-Protocol-Version agrees: core decides (its `eraOf`, version lists
// and revision table); this file reads the header and body it decides from.

/** The header naming a request's protocol revision. */
export const VERSION_HEADER = "mcp-protocol-version";

/**
 * The era a POST without a session chose, decided once here by core's `eraOf` from its MCP-Protocol-Version header,
 * its method (a request's) and its `_meta`, and handed to the connection that serves it; undefined for neither.
 */
export function eraOfPost(header: string | null, message: unknown): Era | undefined {
  const params = isPlainObject(message) && isPlainObject(message.params) ? message.params : undefined;
  return eraOf(isRequest(message) ? message.method : undefined, params?._meta, header);
}

/** The 400 of a POST that chose no era: no session, no initialize, no stateless version. */
export function noEra(id: string): Outgoing {
  return refuse(
    400,
    id,
    ErrorCode.ServerError,
    `Bad Request: no MCP-Session-Id; a handshake-era client sends initialize first, a ${LATEST_STATELESS_VERSION} request carries MCP-Protocol-Version and _meta`,
  );
}

/**
 * The 400 of a handshake-era POST to a server that keeps no sessions (`handshake: false`): -32022 naming the versions
 * it serves, as a server of the stateless era only should answer `initialize` (a legacy client can only show it).
 */
export function handshakeRefused(header: string | null, message: unknown, body: string): Outgoing {
  const params = isPlainObject(message) && isPlainObject(message.params) ? message.params : undefined;
  const asked = typeof params?.protocolVersion === "string" ? params.protocolVersion : header;
  return answer(
    400,
    errorLine(messageIdText(message, body), {
      code: ErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version: this server keeps no sessions, so it serves no initialize; it serves ${STATELESS_VERSIONS.join(", ")}, each request carrying MCP-Protocol-Version and _meta`,
      data: {
        supported: [...STATELESS_VERSIONS],
        ...(asked !== null && asked.length <= 64 ? { requested: asked } : {}),
      },
    }),
  );
}

/** Why a 2026-07-28 request's MCP-Protocol-Version is refused (missing, or not `_meta`'s), if it is. */
export function statelessVersionRefusal(
  header: string | null,
  message: Record<string, unknown>,
  body: string,
): Outgoing | undefined {
  if (header === null) {
    return refuse(
      400,
      messageIdText(message, body),
      ErrorCode.HeaderMismatch,
      "The MCP-Protocol-Version header is missing; it must equal _meta's",
    );
  }
  const meta = isPlainObject(message.params) && isPlainObject(message.params._meta) ? message.params._meta : {};
  const inBody = meta[MetaKey.protocolVersion];
  if (inBody === undefined || inBody === header) return undefined;
  return refuse(
    400,
    messageIdText(message, body),
    ErrorCode.HeaderMismatch,
    // Never the body's value itself when it is not a string: it may nest too deep to turn into text.
    `MCP-Protocol-Version (${header}) does not match _meta (${typeof inBody === "string" ? inBody : `not a string: ${Array.isArray(inBody) ? "an array" : typeof inBody}`})`,
  );
}

/**
 * Why a POST in a session is refused for its revision, if it is: a version header other than the session's, or a
 * batch where the session's revision takes none.
 */
export function sessionVersionRefusal(
  header: string | null,
  version: ProtocolVersion | undefined,
  message: unknown,
  body: string,
): Outgoing | undefined {
  if (header !== null && header !== version) {
    return refuse(
      400,
      messageIdText(message, body),
      ErrorCode.InvalidRequest,
      `MCP-Protocol-Version ${header} is not this session's (${version})`,
    );
  }
  if (Array.isArray(message) && (version === undefined || !featuresOf(version).batches)) {
    return refuse(
      400,
      null,
      ErrorCode.InvalidRequest,
      `Invalid request: JSON-RPC batches are accepted only in a ${BATCH_REVISIONS} session`,
    );
  }
  return undefined;
}
