export { type AuditOptions, type AuditRecord, audit } from "./audit.js";
export { callerOf, principalOf } from "./caller.js";
export type { Outcome } from "./outcome.js";
export { RATE_LIMITED, type RateLimitOptions, rateLimit } from "./rate-limit.js";
export { type RequestLogLine, requestLog } from "./request-log.js";
export { TimeoutError, timeout } from "./timeout.js";
