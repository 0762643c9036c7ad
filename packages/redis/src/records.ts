import type { LogLevel } from "@toolsmith/core";
import type { SessionRecord, StoredPrincipal } from "@toolsmith/core/engine";
import { keptCapabilities, keptClientInfo } from "@toolsmith/core/engine";

/** What of a record never changes after `initialize`, as Redis keeps it (JSON). */
interface Fixed {
  readonly id: string;
  readonly principal?: StoredPrincipal;
  readonly caller?: string;
  readonly version: SessionRecord["version"];
  readonly clientInfo: SessionRecord["clientInfo"];
  readonly clientCapabilities: SessionRecord["clientCapabilities"];
}

/**
 * The fixed part of a record as JSON: only what SessionRecord names (a principal by subject, scopes, client id; the
 * client's info and capabilities bounded).
 */
export function encodeFixed(record: SessionRecord): string {
  const { principal } = record;
  const fixed: Fixed = {
    id: record.id,
    ...(principal === undefined
      ? {}
      : {
          principal: {
            subject: principal.subject,
            scopes: [...principal.scopes],
            ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
          },
        }),
    ...(record.caller === undefined ? {} : { caller: record.caller }),
    version: record.version,
    clientInfo: keptClientInfo(record.clientInfo),
    clientCapabilities: keptCapabilities(record.clientCapabilities),
  };
  return JSON.stringify(fixed);
}

/** A record from what the load script answered: [fixed JSON, initialized, level]. */
export function decodeRecord(reply: unknown): SessionRecord | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [fixedJson, initialized, level] = reply as [string, string, string];
  const fixed = JSON.parse(fixedJson) as Fixed;
  return {
    id: fixed.id,
    principal: fixed.principal,
    caller: fixed.caller,
    version: fixed.version,
    clientInfo: fixed.clientInfo,
    clientCapabilities: fixed.clientCapabilities,
    initialized: initialized === "1",
    logLevel: level === "" ? undefined : (level as LogLevel),
  };
}
