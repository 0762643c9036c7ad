/**
 * `@toolsmith/core/internal`: what Toolsmith's own packages (decorators, transports, cli) share with core: helpers
 * shaped by their needs, and the cross-process fan-out of list changes (`onAnnounce`, `mayHear`, `mayRead`,
 * `defaultEngine`), which only transport-http uses yet and so is not promised to others. Unstable: it may change in any release,
 * without notice; nothing outside this repository should import it. What a third party needs to write a transport,
 * an engine or a middleware is public, on `/transport`, `/engine` and `/middleware`.
 */

export { isIpAddress } from "./context/caller.js";
export { utf8Length } from "./engine/session-bounds.js";
export { eraOf } from "./protocol/era.js";
export { BATCH_REVISIONS } from "./protocol/revision.js";
export { isHandshakeVersion } from "./protocol/versions.js";
export type { Audience } from "./registry/router.js";
export { standardSchemaAdapter, zodV4Adapter } from "./schema/adapters.js";
export { isUriTemplate } from "./schema/uri-template.js";
export type { Announcement } from "./server/bus-link.js";
export { defaultEngine, onAnnounce } from "./server/server-access.js";
export { mayHear, mayRead } from "./server/stored-principal.js";
export { isPlainObject } from "./wire/json-rpc.js";
export { andThen, attempt } from "./wire/maybe.js";
export { keyOf, messageIdText, rawBatchIds } from "./wire/raw-id.js";
export { readBounded } from "./wire/read-bounded.js";
