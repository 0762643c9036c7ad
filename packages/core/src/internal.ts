/**
 * `@toolsmith/core/internal`: what Toolsmith's own packages (decorators, transports, cli) share with core. Unstable:
 * it may change in any release, without notice; nothing outside this repository should import it.
 */

export { serviceUnavailable } from "./connection/error-boundary.js";
export { InputRequired } from "./context/ask.js";
export { callerKey, isIpAddress } from "./context/caller.js";
export { DEFAULT_RETRY_AFTER_SECONDS, isEngineUnavailable, isLeaseLost } from "./engine/engine.js";
export {
  keptCapabilities,
  keptClientInfo,
  subscriptionUriRefusal,
  tooManySubscriptions,
  utf8Length,
} from "./engine/session-bounds.js";
export { eraOf } from "./protocol/era.js";
export { BATCH_REVISIONS } from "./protocol/revision.js";
export { isHandshakeVersion } from "./protocol/versions.js";
export type { Audience } from "./registry/router.js";
export { standardSchemaAdapter, zodV4Adapter } from "./schema/schema-adapter.js";
export { isUriTemplate } from "./schema/uri-template.js";
export type { Announcement } from "./server/bus-link.js";
export { defaultEngine, mayHear, mayRead, onAnnounce } from "./server/server.js";
export { isPlainObject } from "./wire/json-rpc.js";
export { andThen, attempt } from "./wire/maybe.js";
export { keyOf, messageIdText, rawBatchIds } from "./wire/raw-id.js";
