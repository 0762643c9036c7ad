/**
 * `@toolsmith/core/middleware`: what a middleware author needs (`Middleware`, the `Operation` it sees, a verified
 * input `Round`, `InputRequired`, which a handler's question throws through it and is no failure) and the kit of
 * ready middleware. Every export is a promise: src/surface.test.ts pins the list.
 */

export { InputRequired, type Round } from "../../context/ask.js";
export type { Middleware, Operation, OperationKind } from "../compose.js";
export { type AuditOptions, type AuditRecord, audit } from "./audit.js";
export { callerKeyOf, callerLabel } from "./caller.js";
export type { Outcome } from "./outcome.js";
export { RATE_LIMITED, type RateLimitOptions, rateLimit } from "./rate-limit.js";
export { type RequestLogLine, requestLog } from "./request-log.js";
export { TimeoutError, timeout } from "./timeout.js";
