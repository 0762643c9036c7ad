// The package without its node:http door (`listen`, `nodeListener`): what a Worker, a browser or any bundle for a
// web target gets through the "workerd", "worker" and "browser" export conditions, or by name as `./web`.
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
export type { Incoming, Outgoing } from "./exchange/exchange.js";
export type { RouteHandler, RouteInfo, RouteOptions, Routes } from "./routes/routes.js";
