import { createHash, timingSafeEqual } from "node:crypto";
import type { OAuthClient } from "./client.js";
import { hashSecret, type RegisteredClient } from "./registration.js";

// Client authentication at the token endpoint (RFC 6749 §2.3.1): exactly one method, the one the client registered.
// Basic credentials are form-urlencoded before base64 (§2.3.1, Appendix B), so each half is form-decoded here; the
// ids and secrets this server issues are base64url, which both encodings leave as they are.

function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/** The id and secret of an `Authorization: Basic` header, undefined when absent; null when malformed. */
export function basicCredentials(header: string | null): { id: string; secret: string } | null | undefined {
  if (header === null) return undefined;
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (match?.[1] === undefined) return /^Basic\b/i.test(header) ? null : undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === undefined || secret === undefined ? null : { id, secret };
}

// Compares digests of equal length, so neither the secret's length nor its content shows in the timing.
function sameSecret(presented: string, storedHash: string | undefined): boolean {
  if (storedHash === undefined) return false;
  const a = createHash("sha256").update(hashSecret(presented)).digest();
  const b = createHash("sha256").update(storedHash).digest();
  return timingSafeEqual(a, b);
}

/** Whether the token request authenticates `client` as it registered to (the record holds the secret's hash). */
export function authenticateClient(
  client: OAuthClient,
  record: RegisteredClient | undefined,
  request: Request,
  form: URLSearchParams,
): boolean {
  const basic = basicCredentials(request.headers.get("authorization"));
  const formId = form.get("client_id");
  const formSecret = form.get("client_secret");
  if (basic === null || (formId !== null && formId !== client.clientId)) return false;
  switch (client.tokenEndpointAuthMethod) {
    case "none":
      return basic === undefined && formSecret === null && formId === client.clientId;
    case "client_secret_basic":
      return (
        basic !== undefined &&
        formSecret === null &&
        basic.id === client.clientId &&
        sameSecret(basic.secret, record?.secretHash)
      );
    case "client_secret_post":
      return (
        basic === undefined &&
        formId === client.clientId &&
        formSecret !== null &&
        sameSecret(formSecret, record?.secretHash)
      );
    default:
      return false;
  }
}
