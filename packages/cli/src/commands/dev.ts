import { runDev } from "../dev/supervisor.js";
import { usage } from "../exit-codes.js";
import { openLog } from "../log-sink.js";
import type { CommandRegistration } from "./context.js";

/** `toolsmith dev <entry> [args…]`: run a server from its TypeScript source, restarting it on changes. */
export const devCommand: CommandRegistration = (program, cli) => {
  program
    .command("dev")
    .description("run a server from its TypeScript source over stdio, restarting it when a file it loaded changes")
    .argument("<entry>", "the server's entry file, e.g. src/main.ts")
    .argument("[args...]", "arguments for the server (e.g. --http)")
    .option("--wire", "log every JSON-RPC line both ways")
    .option("--log <file>", "with --wire: append the wire log to this file instead of stderr")
    .option("--no-watch", "do not restart on changes")
    .passThroughOptions()
    .addHelpText(
      "after",
      "\nTC39 and legacy decorators both work: the nearest tsconfig.json's experimentalDecorators picks.",
    )
    .action(async (entry: string, args: string[], flags: { wire?: boolean; log?: string; watch: boolean }) => {
      if (flags.log !== undefined && !flags.wire) throw usage("--log goes with --wire");
      const wire = flags.wire ? openLog(flags.log, cli.color()) : undefined;
      cli.setExitCode(await runDev(entry, args, { watch: flags.watch, color: cli.color(), ...(wire ? { wire } : {}) }));
      await wire?.close();
    });
};
