import type { AuthInfo, MaybePromise } from "@toolsmith/core";
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
  // Each verifier in turn, at once while they answer at once (a remembered token), else once each settles.
  const first = (ask: (verify: Verifier) => MaybePromise<AuthInfo | undefined>): MaybePromise<AuthInfo | undefined> => {
    let refused: AuthError | undefined;
    let unavailable: AuthUnavailable | undefined;
    const failed = (error: unknown) => {
      if (error instanceof AuthUnavailable) unavailable ??= error;
      else if (error instanceof AuthError && error.status === 401) refused ??= error;
      else throw error;
    };
    const from = (at: number): MaybePromise<AuthInfo | undefined> => {
      for (let index = at; index < verifiers.length; index++) {
        let principal: MaybePromise<AuthInfo | undefined>;
        try {
          principal = ask(verifiers[index] as Verifier);
        } catch (error) {
          failed(error);
          continue;
        }
        // Any thenable a hand-made verifier answers with, not only a Promise.
        if (typeof (principal as PromiseLike<unknown> | undefined)?.then === "function") {
          return Promise.resolve(principal).then(
            (found: AuthInfo | undefined) => found ?? from(index + 1),
            (error: unknown) => {
              failed(error);
              return from(index + 1);
            },
          );
        }
        // Null names no one either (the transport takes it for none), as it does from a verifier answering later.
        if (principal !== undefined && principal !== null) return principal;
      }
      if (unavailable !== undefined) throw unavailable;
      if (refused !== undefined) throw refused;
      return undefined;
    };
    return from(0);
  };
  const hook = async (request: Request) => first((verify) => verify(request));
  // From the header alone only when every verifier can check a token so.
  if (!verifiers.every((verify) => verify.fromAuthorization !== undefined)) return hook;
  return Object.assign(hook, {
    fromAuthorization: (authorization: string | null) =>
      first((verify) => (verify.fromAuthorization as NonNullable<Verifier["fromAuthorization"]>)(authorization)),
  });
}
