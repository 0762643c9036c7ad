import { DefinitionError, shown } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";

// 2026-07-28 caching hints, every rule in one place: the types, the defaults, how hints combine, how they are
// checked at registration and how they go onto a result.

/** Caching hints of 2026-07-28 results. */
export interface CacheHint {
  /** How long a client may reuse the result, in whole milliseconds (0: do not reuse). */
  ttlMs: number;
  /** `public`: the same for every caller; `private`: only for this caller. */
  cacheScope: "public" | "private";
}

/** Which caching hint a 2026-07-28 result carries. */
export type CacheKind = "discover" | "list" | "read";

/** A result's own caching hint; a symbol key, so it never reaches the wire by itself. */
export const CACHE_HINT: unique symbol = Symbol("toolsmith.cacheHint");

// What is registered is the same for everyone until it changes (and a change is told); what a handler computes is not.
const DEFAULT_CACHE: Readonly<Record<CacheKind, CacheHint>> = {
  discover: { ttlMs: 60_000, cacheScope: "public" },
  list: { ttlMs: 60_000, cacheScope: "public" },
  read: { ttlMs: 0, cacheScope: "private" },
};

/** What `resources/list` says while a template's `list` computes part of it per request, unless the template says otherwise. */
export const COMPUTED_LIST_CACHE: CacheHint = { ttlMs: 0, cacheScope: "private" };

/**
 * Of two hints, one a client may follow for both: the shorter lifetime, the narrower scope. One of the two itself
 * when it is already both (so combining the same hints again and again makes nothing new).
 */
export function narrower(a: CacheHint | undefined, b: CacheHint): CacheHint {
  if (!a) return b;
  const ttlMs = Math.min(a.ttlMs, b.ttlMs);
  const cacheScope = a.cacheScope === "private" || b.cacheScope === "private" ? "private" : "public";
  if (a.ttlMs === ttlMs && a.cacheScope === cacheScope) return a;
  if (b.ttlMs === ttlMs && b.cacheScope === cacheScope) return b;
  return Object.freeze({ ttlMs, cacheScope });
}

const HINT_FIELDS = new Set(["ttlMs", "cacheScope"]);

/**
 * `hint` checked and copied (each field read once, so a getter or a later change to the author's object cannot reach
 * the wire), or undefined. Throws a DefinitionError naming `field` (`Resource "notes://all" cache`) and what was given
 * unless it is one the wire allows: `ttlMs` a whole number of milliseconds, 0 or more; `cacheScope` "public" or
 * "private"; no other field.
 */
export function takeCacheHint(hint: unknown, field: string): CacheHint | undefined {
  if (hint === undefined) return undefined;
  if (!isPlainObject(hint)) throw new DefinitionError(`${field} must be { ttlMs, cacheScope }, not ${shown(hint)}`);
  const extra = Object.keys(hint).find((key) => !HINT_FIELDS.has(key));
  if (extra !== undefined) {
    throw new DefinitionError(`${field}.${extra} is not a field of a hint; a hint is { ttlMs, cacheScope }`);
  }
  const { ttlMs, cacheScope } = hint;
  if (!Number.isSafeInteger(ttlMs) || (ttlMs as number) < 0) {
    throw new DefinitionError(`${field}.ttlMs must be a whole number of milliseconds, 0 or more, not ${shown(ttlMs)}`);
  }
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw new DefinitionError(`${field}.cacheScope must be "public" or "private", not ${shown(cacheScope)}`);
  }
  // + 0: -0 is a ttl of 0.
  return Object.freeze({ ttlMs: (ttlMs as number) + 0, cacheScope });
}

/** The hints a server gives each kind of result: `createServer({ cache })`, checked, over the defaults. */
export function serverCacheHints(given: unknown): Record<CacheKind, CacheHint> {
  const hints = { ...DEFAULT_CACHE };
  if (given === undefined) return hints;
  if (!isPlainObject(given)) throw new DefinitionError(`cache must be an object of hints by kind, not ${shown(given)}`);
  for (const [kind, hint] of Object.entries(given)) {
    if (hint === undefined) continue;
    if (!Object.hasOwn(DEFAULT_CACHE, kind)) {
      throw new DefinitionError(`cache.${kind} is not a kind of result; hints are for discover, list and read`);
    }
    hints[kind as CacheKind] = takeCacheHint(hint, `cache.${kind}`) as CacheHint;
  }
  return hints;
}

/** A result as the handshake era sends it: no hint, not even its own. */
export function withoutHint(result: Record<string, unknown>): Record<string, unknown> {
  if (!(CACHE_HINT in result)) return result;
  const { [CACHE_HINT]: _hint, ...rest } = result as Record<string | symbol, unknown>;
  return rest as Record<string, unknown>;
}

/**
 * True when stamping `result` with no `fallback` only adds `resultType` "complete" and the server's `_meta` after its
 * own keys: it has no hint of its own, no `resultType` or `_meta` key (whose place a stamp keeps) and no `toJSON`.
 * Such a result's stamp can be text appended to its JSON, made once (`StampedResult`).
 */
export function stampsAsComplete(result: Record<string, unknown>, fallback: CacheHint | undefined): boolean {
  return (
    fallback === undefined &&
    !(CACHE_HINT in result) &&
    !("resultType" in result) &&
    !("_meta" in result) &&
    !("toJSON" in result)
  );
}

/**
 * A 2026-07-28 result whose stamp is text made once: `tail` closes the result's JSON object (`,"resultType":…}`), so
 * neither a stamped copy of the result nor the server's `_meta` is serialized per call.
 */
export class StampedResult {
  constructor(
    readonly result: Record<string, unknown>,
    readonly tail: string,
  ) {}
}

/**
 * A 2026-07-28 result with its hint on the wire: `resultType` "complete" unless it says otherwise and, when complete
 * and of a cached kind (`fallback` given), `ttlMs` and `cacheScope` from its own hint, else `fallback`; private
 * whatever either says when what it shows depends on the caller. Never on `input_required`.
 */
export function stampCacheHint(
  result: Record<string, unknown>,
  fallback: CacheHint | undefined,
  perCaller: boolean,
): Record<string, unknown> {
  const { [CACHE_HINT]: own, ...rest } = result as Record<string | symbol, unknown>;
  const out = rest as Record<string, unknown>;
  out.resultType ??= "complete";
  if (fallback !== undefined && out.resultType === "complete") {
    const hint = (own as CacheHint | undefined) ?? fallback;
    out.ttlMs = hint.ttlMs;
    out.cacheScope = perCaller ? "private" : hint.cacheScope;
  }
  return out;
}
