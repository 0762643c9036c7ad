/**
 * `@toolsmith/core/internal`: what Toolsmith's own packages (decorators, transports, cli) share with core: helpers
 * shaped by their needs, and the cross-process fan-out of list changes (`onAnnounce`, `mayHear`, `mayRead`,
 * `defaultEngine`) until issue 25's one-session work settles its shape. Unstable: it may change in any release,
 * without notice; nothing outside this repository should import it. What a third party needs to write a transport,
 * an engine or a middleware is public, on `/transport`, `/engine` and `/middleware`.
 */

export { isIpAddress } from "./context/caller.js";
export { utf8Length } from "./engine/session-bounds.js";
export type { Audience } from "./registry/router.js";
export { standardSchemaAdapter, zodV4Adapter } from "./schema/schema-adapter.js";
export { isUriTemplate } from "./schema/uri-template.js";
export type { Announcement } from "./server/engine-link.js";
export { defaultEngine, mayHear, mayRead, onAnnounce } from "./server/server.js";
export { isPlainObject } from "./wire/json-rpc.js";
export { keyOf, rawBatchIds } from "./wire/raw-id.js";

// Moving: these names are public now, on /transport, /engine and /middleware, and leave this entry once every package
// imports them from there (issue 25; .changeset/core-entries-by-audience.md).

export { serviceUnavailable } from "./connection/error-boundary.js";
export { InputRequired } from "./context/ask.js";
export { callerKey } from "./context/caller.js";
export { DEFAULT_RETRY_AFTER_SECONDS, isEngineUnavailable, isLeaseLost } from "./engine/engine.js";
export {
  keptCapabilities,
  keptClientInfo,
  subscriptionUriRefusal,
  tooManySubscriptions,
} from "./engine/session-bounds.js";
