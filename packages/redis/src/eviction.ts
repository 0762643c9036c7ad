import type { Redis } from "ioredis";

// Redis under memory pressure evicts keys unless its maxmemory-policy is noeviction: every volatile-* policy takes
// keys with a time to live, which nearly every key of the engine has, and allkeys-* take any. An evicted session,
// task or lease is lost state (a request in flight never answered), so the engine checks the policy when it starts.

/** What `CONFIG GET` said of Redis's eviction, or why it could not be read (managed Redis often refuses CONFIG). */
export type Eviction = { readonly policy: string; readonly maxmemory: number } | { readonly unreadable: string };

/** Read `maxmemory-policy` and `maxmemory`; never throws (a refusal or a time-out is `unreadable`). */
export async function readEviction(client: Redis): Promise<Eviction> {
  try {
    const reply = (await client.call("CONFIG", "GET", "maxmemory-policy", "maxmemory")) as string[];
    const found = new Map<string, string>();
    for (let i = 0; i + 1 < reply.length; i += 2) found.set(String(reply[i]), String(reply[i + 1]));
    const policy = found.get("maxmemory-policy");
    if (policy === undefined) return { unreadable: "CONFIG GET did not name maxmemory-policy" };
    return { policy, maxmemory: Number(found.get("maxmemory") ?? 0) };
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

/** What the engine does about it: start quietly, say something (at `warning`), or refuse to start. */
export type EvictionVerdict =
  | { readonly kind: "fine" }
  | { readonly kind: "warn"; readonly message: string }
  | { readonly kind: "refuse"; readonly message: string };

const ADVICE = 'set maxmemory-policy noeviction (see docs/scale-out.md, "Configuring Redis")';

/** The verdict on `eviction` for the Redis at `where`; `allowEviction` turns a refusal into a warning. */
export function evictionVerdict(eviction: Eviction, where: string, allowEviction: boolean): EvictionVerdict {
  if ("unreadable" in eviction) {
    return {
      kind: "warn",
      message: `Redis engine: could not read maxmemory-policy at ${where} (${eviction.unreadable}); unless it is noeviction, Redis may evict sessions, tasks and leases when full: ${ADVICE}`,
    };
  }
  const { policy, maxmemory } = eviction;
  if (policy === "noeviction") return { kind: "fine" };
  if (maxmemory === 0) {
    return {
      kind: "warn",
      message: `Redis engine: Redis at ${where} has maxmemory-policy ${policy} and no maxmemory yet; once one is set it will evict sessions, tasks and leases when full: ${ADVICE}`,
    };
  }
  const what = `Redis at ${where} evicts keys when full (maxmemory-policy ${policy}, maxmemory ${maxmemory} bytes), and would lose sessions, tasks and leases (requests in flight never answered)`;
  if (allowEviction) return { kind: "warn", message: `Redis engine: ${what}; allowed by allowEviction: ${ADVICE}` };
  return {
    kind: "refuse",
    message: `Refusing to start the Redis engine: ${what}. ${ADVICE}, or pass allowEviction: true to accept the loss`,
  };
}
