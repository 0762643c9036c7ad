import { AuthError } from "@toolsmith/transport-http";

// What a refused caller is told: the RFC 6750 error code and a fixed sentence, never the token or why a check
// failed beyond what a client can act on (refresh an expired token, ask for one for this resource).
const INVALID = "Unauthorized: the access token is not valid";
const EXPIRED = "Unauthorized: the access token expired";
const NOT_YET = "Unauthorized: the access token is not valid yet";
const OTHER_RESOURCE = "Unauthorized: the access token was not issued for this resource";
const MALFORMED = "Unauthorized: the Authorization header is not a bearer token";

/** Why a token is refused, as far as its caller is told. */
export type InvalidReason = "invalid" | "expired" | "not-yet-valid" | "other-resource" | "malformed";

const MESSAGES: Record<InvalidReason, string> = {
  invalid: INVALID,
  expired: EXPIRED,
  "not-yet-valid": NOT_YET,
  "other-resource": OTHER_RESOURCE,
  malformed: MALFORMED,
};

/** The 401 `invalid_token` of a token that is malformed, forged, expired or meant for someone else. */
export function invalidToken(reason: InvalidReason = "invalid"): AuthError {
  return new AuthError(401, MESSAGES[reason], "invalid_token");
}

/** The 403 `insufficient_scope` of a good token that lacks scopes the server requires of every caller. */
export function insufficientScope(missing: readonly string[]): AuthError {
  return new AuthError(403, `Forbidden: the access token lacks the scope ${missing.join(" ")}`, "insufficient_scope");
}

/** `scopes` when they include every one of `required`, else the 403 that names the missing ones. */
export function checkScopes(scopes: readonly string[], required: readonly string[] | undefined): void {
  if (required === undefined || required.length === 0) return;
  const missing = required.filter((scope) => !scopes.includes(scope));
  if (missing.length > 0) throw insufficientScope(missing);
}
