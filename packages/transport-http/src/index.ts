export type { RemoteAddress } from "./checks/caller-limits.js";
export { type ForwardedForOptions, forwardedFor } from "./checks/forwarded-for.js";
export {
  AuthError,
  type AuthenticateHook,
  type AuthOptions,
  AuthUnavailable,
  type ProtectionOptions,
} from "./checks/protection.js";
export { createHttpDispatcher, type HttpDispatcher } from "./dispatch/dispatcher.js";
export type { HttpOptions } from "./dispatch/options.js";
export { createHttpHandler, type HttpHandler } from "./doors/http-handler.js";
export { nodeListener } from "./doors/node-listener.js";
export { type HttpServer, type ListenOptions, listen } from "./doors/node-server.js";
export type { Incoming, Outgoing } from "./exchange/exchange.js";
export type { RouteHandler, RouteInfo, RouteOptions, Routes } from "./routes/routes.js";
