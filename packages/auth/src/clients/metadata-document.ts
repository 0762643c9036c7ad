import type { Vault } from "../vault/vault.js";
import { type ClientLookup, clientOf } from "./client.js";
import { checkClientMetadata } from "./client-metadata.js";
import { DocumentRefusal, type FetchLimits, fetchDocument } from "./fetch-document.js";

// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL names
// a JSON document of the client's metadata, fetched on first use and kept sealed in the vault for as long as its
// Cache-Control allows, within bounds. A refusal is kept briefly too, so a hostile URL costs one fetch per window.

const KIND = "client-document";
const MAX_CLIENT_ID_URL = 2048;
/** Documents fetched at once by one process: past it a lookup is refused (not kept), so a flood of URLs costs little. */
export const MAX_FETCHES_AT_ONCE = 32;

/** How long documents and refusals are kept, and how many documents are fetched in an hour. */
export interface DocumentCaching {
  readonly defaultMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly refusalMs: number;
  readonly fetchesPerHour: number;
}

const HOUR_MS = 60 * 60 * 1000;

/** Whether `clientId` is meant as a metadata document URL (as opposed to a registered id). */
export function isUrlClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Why `clientId` is not a valid client identifier URL (draft §3), or undefined when it is. */
export function clientIdUrlProblem(clientId: string, development: boolean): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_URL) return `its URL is longer than ${MAX_CLIENT_ID_URL} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "it is not a valid URL";
  }
  if (url.protocol !== "https:" && !(development && url.protocol === "http:")) return "its URL is not https";
  if (clientId.includes("#")) return "its URL has a fragment";
  if (url.username !== "" || url.password !== "") return "its URL carries credentials";
  if (url.pathname === "/" || url.pathname === "") return "its URL has no path";
  // The document's client_id is compared as a string: only the normalized form (no dot segments, lower-case scheme
  // and host, no default port) can match, so any other is refused here, before a fetch.
  if (url.href !== clientId) return "its URL is not in normalized form (dot segments, upper case, default port)";
  return undefined;
}

const refusal = (why: string): ClientLookup => ({ reason: `The client's metadata document was refused: ${why}.` });

async function fetchClient(
  clientId: string,
  limits: FetchLimits,
  caching: DocumentCaching,
): Promise<{ lookup: ClientLookup; ttlMs: number }> {
  try {
    const document = await fetchDocument(new URL(clientId), limits);
    const json = document.json as Record<string, unknown> | null;
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      return { lookup: refusal("it is not a JSON object"), ttlMs: caching.refusalMs };
    }
    if (json.client_id !== clientId) {
      return { lookup: refusal("its client_id is not the URL it was fetched from"), ttlMs: caching.refusalMs };
    }
    const checked = checkClientMetadata(json, "metadata-document", limits.development);
    if (checked.error !== undefined) {
      return { lookup: refusal(checked.error.description), ttlMs: caching.refusalMs };
    }
    const wanted = document.noStore
      ? caching.minMs
      : document.maxAgeSec === undefined
        ? caching.defaultMs
        : document.maxAgeSec * 1000;
    const ttlMs = Math.min(caching.maxMs, Math.max(caching.minMs, wanted));
    return { lookup: { client: clientOf(clientId, checked.metadata, "metadata-document") }, ttlMs };
  } catch (error) {
    if (error instanceof DocumentRefusal) return { lookup: refusal(error.message), ttlMs: caching.refusalMs };
    throw error;
  }
}

/** Whether `hostname` is one of `trusted` or below one (`example.com` trusts `app.example.com`). */
export function isTrustedHost(hostname: string, trusted: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return trusted.some((entry) => {
    const domain = entry.toLowerCase();
    return host === domain || host.endsWith(`.${domain}`);
  });
}

/** Finds clients by metadata document URL: from the vault when kept, else fetched (one fetch per URL at a time). */
export function createDocumentClients(
  vault: Vault,
  limits: FetchLimits,
  caching: DocumentCaching,
  trustedHosts?: readonly string[],
) {
  const inFlight = new Map<string, Promise<ClientLookup>>();
  const load = async (clientId: string): Promise<ClientLookup> => {
    const kept = await vault.get<ClientLookup>(KIND, clientId);
    if (kept !== undefined) return kept;
    // Each document is kept up to a day: without a bound on fetches, a flood of distinct URLs (any path, any name
    // under a wildcard) fills the engine's store, and every sign-in fails with it. Past it, refused and not kept.
    if ((await vault.count("document-fetches", "(every client)", HOUR_MS)) > caching.fetchesPerHour) {
      return refusal("too many documents were fetched in the last hour; try again later");
    }
    const { lookup, ttlMs } = await fetchClient(clientId, limits, caching);
    await vault.put(KIND, clientId, lookup, ttlMs);
    return lookup;
  };
  return {
    lookup(clientId: string): Promise<ClientLookup> {
      const problem = clientIdUrlProblem(clientId, limits.development);
      if (problem !== undefined) return Promise.resolve(refusal(problem));
      if (trustedHosts !== undefined && !isTrustedHost(new URL(clientId).hostname, trustedHosts)) {
        return Promise.resolve(refusal("its host is not one this server accepts clients from"));
      }
      let pending = inFlight.get(clientId);
      if (pending === undefined) {
        if (inFlight.size >= MAX_FETCHES_AT_ONCE) {
          return Promise.resolve(refusal("too many documents are being fetched at once; try again shortly"));
        }
        pending = load(clientId).finally(() => inFlight.delete(clientId));
        inFlight.set(clientId, pending);
      }
      return pending;
    },
  };
}
