import type { Vault } from "../vault/vault.js";
import { type ClientLookup, type ClientRegistry, clientOf } from "./client.js";
import { authenticateClient } from "./client-authentication.js";
import type { HostResolver } from "./fetch-document.js";
import { createDocumentClients, isUrlClientId } from "./metadata-document.js";
import { findRegistration, register } from "./registration.js";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Options of `createClientRegistry`. */
export interface ClientRegistryOptions {
  /** Where clients and cached documents are kept (the server's engine, sealed). */
  readonly vault: Vault;
  /** Accept https URL client ids (client ID metadata documents). Default true. */
  readonly metadataDocuments?: boolean;
  /** Open POST /register (RFC 7591). Default true. */
  readonly dynamicRegistration?: boolean;
  /** Local development: documents may be fetched over http and from loopback or private addresses. Default false. */
  readonly development?: boolean;
  /** Registration attempts one caller may make in an hour (fixed window); more get 429. Default 20. */
  readonly registrationsPerHour?: number;
  /**
   * Registration attempts in an hour from every caller together (fixed window), counted before each caller's own;
   * more get 429. Default 100: with the default TTL, at most 72 000 live records, below the memory engine's 100 000
   * values, and at most 100 callers' counters an hour.
   */
  readonly registrationsPerHourTotal?: number;
  /** How long a registered client is kept, from its registration (fixed, not sliding). Default 30 days. */
  readonly registrationTtlMs?: number;
  /** Time for a whole document fetch, resolution included. Default 5 s. */
  readonly documentTimeoutMs?: number;
  /** Largest document read; reading stops past it. Default 5 KiB. */
  readonly documentMaxBytes?: number;
  /** How long a document is kept when it says no `max-age`. Default 5 minutes; any is held within 1 minute..1 day. */
  readonly documentCacheMs?: number;
  /**
   * Metadata documents fetched in an hour, every client together (fixed window); past it a new URL is refused until
   * the hour ends (those kept still resolve). Default 500: at most 12 000 kept at once with the 1-day cache bound.
   */
  readonly documentFetchesPerHour?: number;
  /** A trust policy: accept metadata documents only from these hosts and their subdomains. Default: any public host. */
  readonly documentHosts?: readonly string[];
  /** Resolves host names for document fetches (default: the system resolver); every address it gives is checked. */
  readonly resolveHost?: HostResolver;
}

/**
 * The clients an authorization server accepts: by client ID metadata document (an https URL client_id, fetched with
 * SSRF guards and cached in the vault) and by dynamic registration, and their authentication at the token endpoint.
 */
export function createClientRegistry(options: ClientRegistryOptions): ClientRegistry {
  const { vault } = options;
  const metadataDocuments = options.metadataDocuments ?? true;
  const dynamicRegistration = options.dynamicRegistration ?? true;
  const development = options.development ?? false;
  const documents = createDocumentClients(
    vault,
    {
      timeoutMs: options.documentTimeoutMs ?? 5000,
      maxBytes: options.documentMaxBytes ?? 5 * 1024,
      development,
      ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    },
    {
      defaultMs: options.documentCacheMs ?? 5 * MINUTE_MS,
      minMs: MINUTE_MS,
      maxMs: DAY_MS,
      refusalMs: 30_000,
      fetchesPerHour: options.documentFetchesPerHour ?? 500,
    },
    options.documentHosts,
  );
  const registration = {
    vault,
    enabled: dynamicRegistration,
    development,
    perHour: options.registrationsPerHour ?? 20,
    perHourTotal: options.registrationsPerHourTotal ?? 100,
    ttlMs: options.registrationTtlMs ?? 30 * DAY_MS,
  };
  const lookup = async (clientId: string): Promise<ClientLookup> => {
    if (isUrlClientId(clientId)) {
      return metadataDocuments
        ? documents.lookup(clientId)
        : { reason: "This server does not accept client ID metadata documents (URL client ids)." };
    }
    const record = clientId.length > 0 && clientId.length <= 256 ? await findRegistration(vault, clientId) : undefined;
    return record === undefined
      ? { reason: "No client is registered under this client_id (it may have expired); register again." }
      : { client: clientOf(clientId, record.metadata, "registration") };
  };
  return {
    metadataDocuments,
    dynamicRegistration,
    lookup,
    async resolve(clientId) {
      return (await lookup(clientId)).client;
    },
    register: (request, caller) => register(registration, request, caller),
    async authenticate(client, request, form) {
      const record =
        client.source === "registration" && client.tokenEndpointAuthMethod !== "none"
          ? await findRegistration(vault, client.clientId)
          : undefined;
      return authenticateClient(client, record, request, form);
    },
  };
}
