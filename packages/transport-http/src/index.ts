export type { RemoteAddress } from "./caller-limits.js";
export { createHttpEngine, type HttpEngine, type HttpOptions } from "./engine.js";
export type { Incoming, Outgoing } from "./exchange.js";
export { type ForwardedForOptions, forwardedFor } from "./forwarded-for.js";
export { createHttpHandler, type HttpHandler } from "./http-handler.js";
export { type HttpServer, type ListenOptions, listen, nodeListener } from "./listen.js";
export { AuthError, type AuthOptions, type ProtectionOptions } from "./protection.js";
export type { RouteHandler, RouteOptions, Routes } from "./routes.js";
