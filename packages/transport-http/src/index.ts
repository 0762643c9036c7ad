export type { Incoming, Outgoing } from "./exchange.js";
export {
  createHttpEngine,
  createHttpHandler,
  type HttpEngine,
  type HttpHandler,
  type HttpOptions,
} from "./http-handler.js";
export { type HttpServer, type ListenOptions, listen, nodeListener } from "./listen.js";
export { AuthError, type AuthOptions, type ProtectionOptions } from "./protection.js";
