/**
 * `@toolsmith/core/transport`: what a transport author needs beside the root: a server's `Connection` and the options
 * it is made and fed with, the `Delivery` of each line it says, the one writer of error lines (`errorLine`, `idText`),
 * the revisions and what differs between them, the HTTP status of a reply, the outage answer, the caller key of
 * per-caller limits, and the OAuth scopes a server needs and uses (its 401 challenge, its RFC 9728 metadata). The engine a transport keeps sessions in is `@toolsmith/core/engine`. Every export is a
 * promise: src/surface.test.ts pins the list.
 */

export { AbortListeners } from "./connection/abort-listeners.js";
export type { ConnectOptions, ReceiveOptions } from "./connection/connect-options.js";
export { Connection } from "./connection/connection.js";
export { serviceUnavailable } from "./connection/error-boundary.js";
export type { Delivery } from "./connection/outlet.js";
export { callerKey } from "./context/caller.js";
export type { Phase } from "./protocol/era.js";
export { httpStatusOf } from "./protocol/http-status.js";
export { featuresOf, type RevisionFeatures } from "./protocol/revision.js";
export {
  HANDSHAKE_VERSIONS,
  type HandshakeVersion,
  MetaKey,
  STATELESS_VERSIONS,
  type StatelessVersion,
} from "./protocol/versions.js";
export { type Servable, toServer } from "./server/servable.js";
export { declaredScopes, serverScopes } from "./server/server-access.js";
export { errorLine } from "./wire/json-rpc.js";
export { idText } from "./wire/raw-id.js";
