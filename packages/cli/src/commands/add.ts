import { resolve } from "node:path";
import { addStub, KINDS, type Kind } from "../add.js";
import { colorsFor } from "../colors.js";
import { usage } from "../exit-codes.js";
import { type CommandRegistration, out } from "./context.js";

/** `toolsmith add <kind> <name>`: a decorated stub in the server class, and its test. */
export const addCommand: CommandRegistration = (program, cli) => {
  program
    .command("add")
    .description("add a decorated tool, resource or prompt stub to the server class, and its test")
    .argument("<kind>", KINDS.join(" | "))
    .argument("<name>", "the name clients will see (1–64 of A-Z a-z 0-9 _ . -)")
    .option("--file <file>", "the server class file (default: the file under src that has `extends McpServer`)")
    .option("--dir <dir>", "the project folder", ".")
    .action((kind: string, name: string, flags: { file?: string; dir: string }) => {
      if (!(KINDS as readonly string[]).includes(kind)) throw usage(`add takes ${KINDS.join(", ")}; got "${kind}"`);
      const added = addStub(kind as Kind, name, {
        dir: flags.dir,
        ...(flags.file !== undefined ? { file: flags.file } : {}),
      });
      const c = colorsFor(process.stdout, cli.color());
      const rel = (file: string) => file.replace(`${resolve(flags.dir)}/`, "");
      out(`${c.green("added")} ${kind} ${c.cyan(name)} to ${added.className} in ${rel(added.classFile)}\n`);
      out(`${c.green("added")} its test ${rel(added.testFile)}\n`);
    });
};
