import { usage } from "../exit-codes.js";
import { openLog } from "../log-sink.js";
import { parseTarget } from "../target.js";
import { runWire } from "../wire.js";
import type { CommandRegistration } from "./context.js";

/** `toolsmith wire <command…>`: a transparent stdio proxy that logs every JSON-RPC line. */
export const wireCommand: CommandRegistration = (program, cli) => {
  program
    .command("wire")
    .description("a transparent stdio proxy: run it where a host runs the server, and see every JSON-RPC line")
    .argument("<command...>", "the command that starts the server")
    .option("--log <file>", "append the log to this file instead of stderr")
    .passThroughOptions()
    .addHelpText(
      "after",
      '\nIn a host\'s config: command toolsmith, args ["wire", "--log", "/tmp/wire.log", "node", "dist/main.js"]',
    )
    .action(async (words: string[], flags: { log?: string }) => {
      const target = parseTarget(words);
      if (target.kind !== "stdio") throw usage("wire runs a stdio server: give its command, not a URL");
      const sink = openLog(flags.log, cli.color());
      cli.setExitCode(await runWire(target.command, target.args, sink));
      await sink.close();
    });
};
