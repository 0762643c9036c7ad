import { Command, CommanderError } from "commander";
import { colorsFor } from "./colors.js";
import { addCommand } from "./commands/add.js";
import { callCommand } from "./commands/call.js";
import { configCommand } from "./commands/config.js";
import { type CliContext, type CommandRegistration, err } from "./commands/context.js";
import { devCommand } from "./commands/dev.js";
import { listCommand } from "./commands/list.js";
import { logoutCommand } from "./commands/logout.js";
import { taskCommand } from "./commands/task.js";
import { wireCommand } from "./commands/wire.js";
import { CliError, EXIT } from "./exit-codes.js";
import { CLI_VERSION } from "./version.js";

const EXIT_HELP = `
Exit codes:
  0  done
  1  a tool returned isError, the server answered with an error, or the command failed
  2  bad usage (unknown option, missing or malformed argument)
  3  could not start, reach or initialize the server, or it went away (exited, 502/503/504)
  130  stopped by Ctrl-C (toolsmith call cancels a running task first)`;

// In the order `toolsmith --help` lists them.
const COMMANDS: readonly CommandRegistration[] = [
  devCommand,
  listCommand,
  callCommand,
  taskCommand,
  logoutCommand,
  wireCommand,
  addCommand,
  configCommand,
];

/** Run `toolsmith` with these arguments (without node and the script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command("toolsmith")
    .description("Run, inspect and wire up MCP servers")
    .version(CLI_VERSION)
    .option("--no-color", "no colours (also when NO_COLOR is set or the output is not a terminal)")
    .enablePositionalOptions()
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EXIT_HELP);
  const cli: CliContext = {
    color: () => program.opts<{ color: boolean }>().color,
    setExitCode: (exit) => {
      code = exit;
    },
  };
  for (const register of COMMANDS) register(program, cli);

  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
        ? EXIT.ok
        : EXIT.usage;
    }
    const c = colorsFor(process.stderr, cli.color());
    if (error instanceof CliError) {
      err(`${c.red("error:")} ${error.message}\n`);
      return error.code;
    }
    err(`${c.red("error:")} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.failed;
  }
}
