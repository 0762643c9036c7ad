import type { LogLevel } from "@toolsmith/core";
import type { InitializedSession, SessionRecord, StoredPrincipal } from "@toolsmith/core/engine";
import { keptCapabilities, keptClientInfo } from "@toolsmith/core/engine";

/** What of a record never changes after `initialize`, as Redis keeps it (JSON). */
export interface Fixed {
  readonly id: string;
  readonly principal?: StoredPrincipal;
  readonly caller?: string;
  readonly version: SessionRecord["version"];
  readonly clientInfo: SessionRecord["clientInfo"];
  readonly clientCapabilities: SessionRecord["clientCapabilities"];
}

// A principal as kept: by subject, scopes and client id, never a token or other claims.
function keptPrincipal(principal: StoredPrincipal): StoredPrincipal {
  return {
    subject: principal.subject,
    scopes: [...principal.scopes],
    ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
  };
}

/**
 * The fixed part of a record as JSON: only what SessionRecord names (a principal by subject, scopes, client id; the
 * client's info and capabilities bounded).
 */
export function encodeFixed(record: SessionRecord): string {
  const { principal } = record;
  const fixed: Fixed = {
    id: record.id,
    ...(principal === undefined ? {} : { principal: keptPrincipal(principal) }),
    ...(record.caller === undefined ? {} : { caller: record.caller }),
    version: record.version,
    clientInfo: keptClientInfo(record.clientInfo),
    clientCapabilities: keptCapabilities(record.clientCapabilities),
  };
  return JSON.stringify(fixed);
}

/** A record from its fixed part and its state as the load script answers it: initialized ("1"/"0"), then its level. */
export function recordOf(fixed: Fixed, state: string): SessionRecord {
  return {
    id: fixed.id,
    principal: fixed.principal,
    caller: fixed.caller,
    version: fixed.version,
    clientInfo: fixed.clientInfo,
    clientCapabilities: fixed.clientCapabilities,
    initialized: state.charCodeAt(0) === 49,
    logLevel: state.length > 1 ? (state.slice(1) as LogLevel) : undefined,
  };
}

/** A record's principal as its own field of the session's hash (JSON; "" for none), read without the record. */
export function encodePrincipal(record: SessionRecord): string {
  return record.principal === undefined ? "" : JSON.stringify(keptPrincipal(record.principal));
}

/**
 * The sessions the initialized script answered: { id, principal, fixed } each, principal "" for none, fixed (the
 * record's JSON) given only for a record an earlier version kept, whose principal has no field of its own.
 */
export function decodeInitialized(reply: unknown): InitializedSession[] {
  const flat = reply as string[];
  const found: InitializedSession[] = [];
  for (let at = 0; at + 2 < flat.length; at += 3) {
    const [id, principal, fixed] = [flat[at], flat[at + 1], flat[at + 2]] as [string, string, string];
    const kept: StoredPrincipal | undefined =
      principal !== "" ? JSON.parse(principal) : fixed !== "" ? (JSON.parse(fixed) as Fixed).principal : undefined;
    found.push({ id, principal: kept });
  }
  return found;
}
