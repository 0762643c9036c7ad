// The @example blocks of core's middleware/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import type { Server } from "@toolsmith/core";
import { type AuditRecord, audit, InputRequired, rateLimit, requestLog, timeout } from "@toolsmith/core/middleware";

export function timed(server: Server, log: (method: string, ms: number) => void): void {
  //#region Middleware
  server.use(async (op, next) => {
    const started = Date.now();
    try {
      return await next();
    } finally {
      log(op.method, Date.now() - started);
    }
  });
  //#endregion Middleware
}

export function withTimeout(server: Server): void {
  //#region timeout
  server.use(timeout(30_000));
  //#endregion timeout
}

export function audited(server: Server, auditLog: { append(entry: AuditRecord): void }): void {
  //#region audit
  server.use(audit((entry) => auditLog.append(entry), { redact: (args) => args }));
  //#endregion audit
}

export function logged(server: Server): void {
  //#region requestLog
  server.use(requestLog((line) => process.stderr.write(`${line.text}\n`)));
  //#endregion requestLog
}

export function limited(server: Server): void {
  //#region rateLimit
  server.use(rateLimit({ capacity: 5, perSecond: 0.5 }));
  //#endregion rateLimit
}

export function countFailures(server: Server): () => number {
  //#region InputRequired
  let failures = 0;
  server.use(async (_operation, next) => {
    try {
      return await next();
    } catch (error) {
      if (!(error instanceof InputRequired)) failures++;
      throw error;
    }
  });
  //#endregion InputRequired
  return () => failures;
}
