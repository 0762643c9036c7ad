import { DefinitionError, McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { AuthInfo } from "./context.js";

// OAuth scopes: which a caller holds (its principal's, widened by the server's hierarchy of implied scopes; every one
// for a connection whose peer is the local user), and the refusal of an operation that needs more.

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), so no space, quote or backslash.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** True for an RFC 6749 scope token: printable ASCII but space, `"` and `\`, at least one character. */
export function isScopeToken(scope: unknown): scope is string {
  return typeof scope === "string" && SCOPE_TOKEN.test(scope);
}

/**
 * A definition's or server's `scopes`, checked (each an RFC 6749 scope token; duplicates dropped): undefined when
 * none are needed. `what` names the owner in the DefinitionError.
 */
export function checkScopes(what: string, scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes)) {
    throw new DefinitionError(`${what} scopes must be an array of OAuth scope strings, like ["files:write"]`);
  }
  for (const scope of scopes) {
    if (!isScopeToken(scope)) {
      throw new DefinitionError(
        `${what} scope ${JSON.stringify(scope)} is invalid: an OAuth scope (RFC 6749) is one or more printable ASCII characters other than space, '"' and '\\'`,
      );
    }
  }
  return scopes.length === 0 ? undefined : Object.freeze([...new Set(scopes as string[])]);
}

/** Every scope of `lists`, each once, in the order first named; undefined when there are none. */
export function unionOf(...lists: (readonly string[] | undefined)[]): readonly string[] | undefined {
  let union: string[] | undefined;
  for (const list of lists) {
    if (list === undefined) continue;
    union ??= [];
    for (const scope of list) if (!union.includes(scope)) union.push(scope);
  }
  return union;
}

/** What a caller holds: asked scope by scope. */
export interface Grant {
  holds(scope: string): boolean;
}

/** Held by a caller the transport vouches for as the local user (stdio, the in-memory test client without `auth`). */
export const EVERY_SCOPE: Grant = { holds: () => true };

/** Held by a caller with no principal on a transport that does not vouch for it (HTTP without `authenticate`). */
export const NO_SCOPE: Grant = { holds: () => false };

/**
 * Which broad scopes imply which narrower ones (`{ "files:admin": ["files:write", "files:read"] }`), followed
 * transitively: a caller holding the broad one holds each it implies. A cycle is no error (each scope is visited once).
 */
export class ScopeHierarchy {
  readonly #implied: ReadonlyMap<string, readonly string[]>;

  constructor(implied: ReadonlyMap<string, readonly string[]> = new Map()) {
    this.#implied = implied;
  }

  /** `impliedScopes` as `createServer` took it, checked: a DefinitionError for anything but scope tokens. */
  static of(implied: unknown): ScopeHierarchy {
    if (implied === undefined) return new ScopeHierarchy();
    if (typeof implied !== "object" || implied === null || Array.isArray(implied)) {
      throw new DefinitionError(
        `impliedScopes must be an object of arrays, by broad scope: { "files:admin": ["files:write", "files:read"] }`,
      );
    }
    const map = new Map<string, readonly string[]>();
    for (const [broad, narrower] of Object.entries(implied)) {
      if (!isScopeToken(broad)) {
        throw new DefinitionError(`impliedScopes key ${JSON.stringify(broad)} is not an OAuth scope (RFC 6749)`);
      }
      map.set(broad, checkScopes(`impliedScopes["${broad}"]`, narrower) ?? []);
    }
    return new ScopeHierarchy(map);
  }

  /** True when it implies nothing. */
  get empty(): boolean {
    return this.#implied.size === 0;
  }

  /** This hierarchy with `other`'s edges added (a server takes in those of the modules it mounts). */
  with(other: ScopeHierarchy): ScopeHierarchy {
    if (other.empty) return this;
    if (this.empty) return other;
    const map = new Map(this.#implied);
    for (const [broad, narrower] of other.#implied) map.set(broad, unionOf(map.get(broad), narrower) ?? []);
    return new ScopeHierarchy(map);
  }

  /** What `scopes` grant: themselves and, transitively, every scope they imply. */
  grant(scopes: readonly string[]): Grant {
    const held = new Set<string>();
    const visit = (scope: string) => {
      if (typeof scope !== "string" || held.has(scope)) return;
      held.add(scope);
      for (const narrower of this.#implied.get(scope) ?? []) visit(narrower);
    };
    for (const scope of Array.isArray(scopes) ? scopes : []) visit(scope);
    return { holds: (scope) => held.has(scope) };
  }
}

/**
 * What a caller holds: a principal exactly its own scopes (widened by `hierarchy`); without one, every scope when its
 * transport vouches for it as the local user (`everyScope`), else none.
 */
export function grantOf(auth: AuthInfo | undefined, everyScope: boolean, hierarchy: ScopeHierarchy): Grant {
  if (auth !== undefined) return hierarchy.grant(auth.scopes);
  return everyScope ? EVERY_SCOPE : NO_SCOPE;
}

/** The refusal of an operation that needs `scopes` (every one it needs, not only those missing). */
export function insufficientScope(scopes: readonly string[]): McpError {
  return new McpError(ErrorCode.InsufficientScope, `Insufficient scope: this operation needs ${scopes.join(" ")}`, {
    scopes: [...scopes],
  });
}

/** The scopes of an `InsufficientScope` refusal's data, when it has them. */
export function refusedScopes(data: unknown): readonly string[] | undefined {
  const scopes = (data as { scopes?: unknown } | undefined)?.scopes;
  return Array.isArray(scopes) && scopes.every(isScopeToken) && scopes.length > 0 ? scopes : undefined;
}
