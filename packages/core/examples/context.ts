// The @example blocks of core's context/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer, type LogLevel, type RequestContext, type Server, textLogger } from "@toolsmith/core";

export function slow(server: Server, wait: (ms: number, signal: AbortSignal) => Promise<void>): void {
  //#region RequestContext
  server.tool({
    name: "slow",
    description: "Waits",
    handler: async (_args, ctx) => {
      ctx.progress(1, 2);
      await wait(1000, ctx.signal);
    },
  });
  //#endregion RequestContext
}

export function toTheClient(ctx: RequestContext): void {
  //#region ClientLog
  ctx.log.info("import started", { rows: 120 }); // data: { message: "import started", data: { rows: 120 } }
  ctx.log.named("search").warning("airline down"); // logger: "search", data: "airline down"
  //#endregion ClientLog
}

export function ownLog(myLog: Record<LogLevel, (message: string) => void>): void {
  //#region Logger
  createServer({ name: "demo", version: "1.0.0", logger: (entry) => myLog[entry.level](entry.message) });
  //#endregion Logger
}

export function toStderr(server: Server): void {
  //#region textLogger
  server.setLogger(textLogger((line) => process.stderr.write(line)));
  //#endregion textLogger
}
