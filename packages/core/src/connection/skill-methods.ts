import type { RequestContextImpl } from "../context/request-context.js";
import { CACHE_HINT, type CacheHint } from "../protocol/cache-hints.js";
import { check, issuesText, PaginatedParams, ReadResourceParams } from "../protocol/inbound.js";
import { demand } from "../registry/scopes.js";
import { SKILLS_EXTENSION } from "../registry/skills.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import type { ServerCore } from "./server-core.js";

// The skills extension's methods (io.modelcontextprotocol/skills, SEP-2640): skills/list, skills/get and
// resources/directory/read, in every revision, for a server that declares the extension (one with a skill).

/** What a skills method needs: the server (its registry, pages and hints). */
interface SkillsEnv {
  readonly core: ServerCore;
}

function uriOf(params: Record<string, unknown> | undefined): string {
  const parsed = check(ReadResourceParams, params ?? {});
  if (parsed.success) return parsed.data.uri;
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issuesText(parsed.error.issues)}`);
}

function cursorOf(params: Record<string, unknown> | undefined): string | undefined {
  const parsed = check(PaginatedParams, params ?? {});
  if (parsed.success) return parsed.data.cursor;
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issuesText(parsed.error.issues)}`);
}

// A result of registered skills is the same for everyone until it changes, unless a guard decides who sees what.
function withHint(core: ServerCore, result: Record<string, unknown>): Record<string, unknown> {
  if (!core.router.skills.guarded()) return result;
  const hint: CacheHint = { ttlMs: core.router.cache.list.ttlMs, cacheScope: "private" };
  return { ...result, [CACHE_HINT]: hint };
}

// The server's own scopes hold for these as for any operation (a skill has none of its own).
function demandScopes(core: ServerCore, ctx: RequestContextImpl, what: string): void {
  demand(undefined, core.router.required, undefined, ctx, { key: core.router.skills, what }, core.router.report);
}

/** One skills method: run only on a server that declares the extension. */
export interface SkillMethod {
  readonly extension: string;
  readonly cache: "list";
  readonly operation: "list" | "read";
  run(
    env: SkillsEnv,
    params: Record<string, unknown> | undefined,
    ctx: RequestContextImpl,
  ): MaybePromise<Record<string, unknown>>;
}

export const SKILL_METHODS: Readonly<Record<string, SkillMethod>> = {
  "skills/list": {
    extension: SKILLS_EXTENSION,
    cache: "list",
    operation: "list",
    run({ core }, params, ctx) {
      const cursor = cursorOf(params);
      demandScopes(core, ctx, "skills/list");
      // One entry per item: a page never splits a skill's entry.
      return andThen(core.page("skills", core.router.skills.list(ctx), cursor), (page) => withHint(core, page));
    },
  },
  "skills/get": {
    extension: SKILLS_EXTENSION,
    cache: "list",
    operation: "read",
    run({ core }, params, ctx) {
      const uri = uriOf(params);
      demandScopes(core, ctx, "skills/get");
      // A skill a guard hides answers as one that does not exist.
      const skill = core.router.skills.get(uri, ctx);
      if (skill === undefined) throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri}`, { uri });
      return withHint(core, { skill });
    },
  },
  "resources/directory/read": {
    extension: SKILLS_EXTENSION,
    cache: "list",
    operation: "read",
    run({ core }, params, ctx) {
      const uri = uriOf(params);
      const cursor = cursorOf(params);
      demandScopes(core, ctx, "resources/directory/read");
      const children = core.router.skills.directory(uri, ctx);
      if (children === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `${uri} is not a directory resource of this server`, { uri });
      }
      return andThen(core.page("resources", [...children], cursor), (page) => withHint(core, page));
    },
  },
};
