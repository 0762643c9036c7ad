import type { AuthInfo } from "@toolsmith/core";
import { AuthError, AuthUnavailable } from "@toolsmith/transport-http";
import type { Verifier } from "./jwt-verifier.js";

/**
 * Several verifiers in turn (a JWT verifier, then introspection for the tokens it cannot read): the first that names
 * a principal wins. A 401 from one lets the next try; a 403 (a good token without a scope) is the answer at once.
 * None succeeding: a 503 if any could not tell (its provider down), else the first 401, else undefined (no token).
 * @example
 * ```ts source="examples/verify.ts#anyVerifier"
 * const authenticate = anyVerifier(jwts, opaques);
 * ```
 */
export function anyVerifier(...verifiers: Verifier[]): Verifier {
  if (verifiers.length === 0) throw new TypeError("anyVerifier: give it at least one verifier");
  const first = async (ask: (verify: Verifier) => Promise<AuthInfo | undefined>) => {
    let refused: AuthError | undefined;
    let unavailable: AuthUnavailable | undefined;
    for (const verify of verifiers) {
      let principal: AuthInfo | undefined;
      try {
        principal = await ask(verify);
      } catch (error) {
        if (error instanceof AuthUnavailable) unavailable ??= error;
        else if (error instanceof AuthError && error.status === 401) refused ??= error;
        else throw error;
        continue;
      }
      if (principal !== undefined) return principal;
    }
    if (unavailable !== undefined) throw unavailable;
    if (refused !== undefined) throw refused;
    return undefined;
  };
  const hook = (request: Request) => first((verify) => verify(request));
  // From the header alone only when every verifier can check a token so.
  if (!verifiers.every((verify) => verify.fromAuthorization !== undefined)) return hook;
  return Object.assign(hook, {
    fromAuthorization: (authorization: string | null) =>
      first((verify) => (verify.fromAuthorization as NonNullable<Verifier["fromAuthorization"]>)(authorization)),
  });
}
