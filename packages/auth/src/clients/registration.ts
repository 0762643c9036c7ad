import { createHash, randomBytes } from "node:crypto";
import { readBounded } from "@toolsmith/core/internal";
import type { Vault } from "../vault/vault.js";
import { type ClientMetadata, checkClientMetadata } from "./client-metadata.js";

// Dynamic client registration (RFC 7591): a checked request gets a random client id, and a secret when the client
// is confidential; the record is kept sealed in the vault for a fixed time from registration, the secret only as
// its SHA-256 (a 256-bit random secret needs no slow hash). Attempts are counted per caller in a fixed window, and
// the attempts of every caller together in another, counted first.

const KIND = "client";
const HOUR_MS = 60 * 60 * 1000;
const MAX_BODY_BYTES = 16 * 1024;

/** A registered client as kept in the vault. */
export interface RegisteredClient {
  readonly metadata: ClientMetadata;
  /** SHA-256 of the secret, base64url: only for confidential clients. */
  readonly secretHash?: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export interface RegistrationOptions {
  readonly vault: Vault;
  readonly enabled: boolean;
  readonly development: boolean;
  readonly perHour: number;
  /** Registration attempts in an hour from every caller together. */
  readonly perHourTotal: number;
  readonly ttlMs: number;
}

/** SHA-256 of a secret, base64url. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

const refusal = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  json(status, { error, error_description: description }, headers);

async function readBody(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return undefined;
  const bytes = await readBounded(request.body, MAX_BODY_BYTES);
  return bytes === undefined ? undefined : new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/** The registration record for `clientId`, if live. */
export function findRegistration(vault: Vault, clientId: string): Promise<RegisteredClient | undefined> {
  return vault.get<RegisteredClient>(KIND, clientId);
}

/** POST /register: the whole answer (201 with the client's information, or the RFC 7591 error). */
export async function register(options: RegistrationOptions, request: Request, caller: string): Promise<Response> {
  if (!options.enabled) {
    return refusal(403, "access_denied", "dynamic client registration is not enabled on this server");
  }
  if (request.method !== "POST") {
    return refusal(405, "invalid_request", "registration takes POST", { allow: "POST" });
  }
  // Each caller's bound does not bound many callers (an IPv6 block is many addresses): a record lives for ttlMs and
  // a caller's counter for an hour, so without this bound, counted first, a flood fills the engine's store, and
  // every sign-in fails with it.
  if ((await options.vault.count("registrations", "(every caller)", HOUR_MS)) > options.perHourTotal) {
    return refusal(429, "temporarily_unavailable", "too many registrations on this server; try again later", {
      "retry-after": String(HOUR_MS / 1000),
    });
  }
  const attempts = await options.vault.count("registrations", caller, HOUR_MS);
  if (attempts > options.perHour) {
    return refusal(429, "temporarily_unavailable", "too many registrations from this caller; try again later", {
      "retry-after": String(HOUR_MS / 1000),
    });
  }
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    return refusal(400, "invalid_client_metadata", "the request body must be application/json");
  }
  const body = await readBody(request);
  if (body === undefined) {
    return refusal(400, "invalid_client_metadata", `the request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  let input: unknown;
  try {
    input = JSON.parse(body);
  } catch {
    return refusal(400, "invalid_client_metadata", "the request body is not valid JSON");
  }
  const checked = checkClientMetadata(input, "registration", options.development);
  if (checked.error !== undefined) return refusal(400, checked.error.error, checked.error.description);
  const { metadata } = checked;
  const clientId = randomBytes(24).toString("base64url");
  const secret = metadata.token_endpoint_auth_method === "none" ? undefined : randomBytes(32).toString("base64url");
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = issuedAt + Math.floor(options.ttlMs / 1000);
  const record: RegisteredClient = {
    metadata,
    ...(secret === undefined ? {} : { secretHash: hashSecret(secret) }),
    issuedAt,
    expiresAt,
  };
  if (!(await options.vault.put(KIND, clientId, record, options.ttlMs, { ifAbsent: true }))) {
    return refusal(500, "server_error", "the registration could not be stored; try again");
  }
  return json(201, {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: expiresAt }),
    ...metadata,
  });
}
