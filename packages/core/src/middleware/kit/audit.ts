import type { Middleware, Operation } from "../compose.js";
import { callerLabel } from "./caller.js";
import { type Outcome, observe } from "./outcome.js";

/** One audited operation. */
export interface AuditRecord {
  at: string;
  method: string;
  name?: string;
  uri?: string;
  caller: string;
  /** The arguments as sent, after `redact`. */
  arguments?: Readonly<Record<string, unknown>>;
  outcome: Outcome["outcome"];
  code?: number;
}

export interface AuditOptions {
  /** Which operations are audited (default: calls, reads and gets; not lists or completions). */
  when?: (operation: Operation) => boolean;
  /** What of the arguments is kept (default: every argument's name, values replaced by their type). */
  redact?: (args: Readonly<Record<string, unknown>>, operation: Operation) => Readonly<Record<string, unknown>>;
}

const byType = (args: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.keys(args).map((key) => [key, Array.isArray(args[key]) ? "array" : typeof args[key]]));

/**
 * Tell `record` of every operation once it has ended: who did what, to what, and how it went.
 * @example
 * ```ts source="examples/middleware.ts#audit"
 * server.use(audit((entry) => auditLog.append(entry), { redact: (args) => args }));
 * ```
 */
export function audit(record: (entry: AuditRecord) => void, options: AuditOptions = {}): Middleware {
  const when = options.when ?? ((operation) => operation.kind !== "list" && operation.kind !== "complete");
  const redact = options.redact ?? byType;
  return (operation, next) => {
    if (!when(operation)) return next();
    const entry: AuditRecord = {
      at: new Date().toISOString(),
      method: operation.method,
      caller: callerLabel(operation.ctx),
      outcome: "ok",
    };
    if (operation.name !== undefined) entry.name = operation.name;
    if (operation.uri !== undefined) entry.uri = operation.uri;
    if (operation.arguments !== undefined) entry.arguments = redact(operation.arguments, operation);
    return observe(next, (ended) => {
      entry.outcome = ended.outcome;
      if (ended.outcome === "error") entry.code = ended.code;
      record(entry);
    });
  };
}
