export { createHttpHandler, type HttpHandler, type HttpOptions } from "./http-handler.js";
export { type HttpServer, type ListenOptions, listen, nodeListener } from "./listen.js";
export { AuthError, type AuthOptions, type ProtectionOptions } from "./protection.js";
