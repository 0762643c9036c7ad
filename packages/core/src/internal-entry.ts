/**
 * `@toolsmith/core/internal`: what Toolsmith's own packages (decorators, transports, cli) share with core. Unstable:
 * it may change in any release, without notice; nothing outside this repository should import it.
 */
export { isPlainObject } from "./json-rpc.js";
export { keyOf, rawBatchIds } from "./raw-id.js";
export { zodV4Adapter } from "./schema-adapter.js";
export { isUriTemplate } from "./uri-template.js";
