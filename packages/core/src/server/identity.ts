import {
  type CacheHint,
  type CacheKind,
  StampedResult,
  stampCacheHint,
  stampsAsComplete,
} from "../protocol/cache-hints.js";
import { CORE_TASKS_CAPABILITY } from "../protocol/core-tasks.js";
import { featuresOf } from "../protocol/revision.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { HANDSHAKE_VERSIONS, MetaKey, type ProtocolVersion, STATELESS_VERSIONS } from "../protocol/versions.js";
import { UI_EXTENSION } from "../registry/app-options.js";
import type { Router } from "../registry/router.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Implementation } from "../wire/types.js";

/**
 * The server as it introduces itself, per revision: its `serverInfo`, the `initialize` and `server/discover`
 * results, and the stamp on each result (`resultType`, its caching hint, `serverInfo` in `_meta`). Each revision's
 * form is made once.
 */
export class ServerIdentity {
  readonly info: Implementation;
  readonly #router: Router;
  readonly #instructions: string | undefined;
  readonly #serverInfo = new Map<ProtocolVersion, Implementation>();
  readonly #metaServerInfo: Record<string, unknown>;
  // What closes a 2026-07-28 result stamped only "complete": its resultType and this server's _meta, as JSON.
  #completeTail: string | undefined;

  constructor(info: Implementation, instructions: string | undefined, router: Router) {
    this.info = info;
    this.#instructions = instructions;
    this.#router = router;
    this.#metaServerInfo = { [MetaKey.serverInfo]: info };
  }

  /** The server's info as `version` defines it (fields it does not know left out). */
  serverInfo(version: ProtocolVersion): Implementation {
    let info = this.#serverInfo.get(version);
    if (!info) {
      const features = featuresOf(version);
      info = { ...this.info };
      if (!features.titlesAndStructuredOutput) delete info.title;
      if (!features.icons) {
        delete info.icons;
        delete info.description;
        delete info.websiteUrl;
      }
      this.#serverInfo.set(version, info);
    }
    return info;
  }

  /** `handshake`: whether the transport serves the handshake era (HTTP's `handshake: false` does not). */
  discoverResult(handshake: boolean): Record<string, unknown> {
    const capabilities = this.#router.capabilities();
    const result: Record<string, unknown> = {
      supportedVersions: handshake ? [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS] : [...STATELESS_VERSIONS],
      // The tasks extension exists only in 2026-07-28, so only discover tells of it.
      capabilities: this.#router.tasking()
        ? { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } }
        : capabilities,
    };
    if (this.#instructions !== undefined) result.instructions = this.#instructions;
    return result;
  }

  initializeResult(version: ProtocolVersion): Record<string, unknown> {
    let capabilities = this.#router.capabilities();
    const features = featuresOf(version);
    // 2025-03-26 has no `_meta` on tools, so no tool can link an MCP App: its extension is not declared there
    // (the skills extension needs no `_meta`, and stays).
    if (!features.itemMeta && capabilities.extensions?.[UI_EXTENSION] !== undefined) {
      const { extensions, ...rest } = capabilities;
      const { [UI_EXTENSION]: _dropped, ...others } = extensions;
      capabilities = Object.keys(others).length > 0 ? { ...rest, extensions: others } : rest;
    }
    // 2025-11-25 declares its tasks in `initialize` (the extension's are discover's).
    if (features.tasks === "core" && this.#router.tasking())
      capabilities = { ...capabilities, tasks: CORE_TASKS_CAPABILITY };
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities,
      serverInfo: this.serverInfo(version),
    };
    if (this.#instructions !== undefined) result.instructions = this.#instructions;
    return result;
  }

  /** A 2026-07-28 result as it goes out: its `resultType`, caching hint (of `cache`, else `fallback`) and `_meta`. */
  stamp(
    result: Record<string, unknown>,
    cache: CacheKind | undefined,
    perCaller = false,
    fallback?: CacheHint,
  ): Record<string, unknown> | StampedResult {
    const hint = cache === undefined ? undefined : (fallback ?? this.#router.cache[cache]);
    if (stampsAsComplete(result, hint)) {
      // Made on first use, as serverInfo(version) is: the info as it was then.
      this.#completeTail ??= `,"resultType":"complete","_meta":${JSON.stringify(this.#metaServerInfo)}}`;
      return new StampedResult(result, this.#completeTail);
    }
    const out = stampCacheHint(result, hint, perCaller);
    out._meta = isPlainObject(out._meta) ? { ...out._meta, ...this.#metaServerInfo } : this.#metaServerInfo;
    return out;
  }
}
