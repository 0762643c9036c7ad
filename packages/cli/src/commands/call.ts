import { formatResult, parseArgsJson, parsePairs } from "../call.js";
import { colorsFor } from "../colors.js";
import { CliError, EXIT } from "../exit-codes.js";
import { splitCall } from "../target.js";
import { addClientOptions, type ClientFlags, clientOptions, useClient } from "./client.js";
import { type CommandRegistration, err, out } from "./context.js";

/** `toolsmith call <server…> <tool> [key=value…]`: call one tool and print what it returned. */
export const callCommand: CommandRegistration = (program, cli) => {
  addClientOptions(
    program
      .command("call")
      .description("call one tool and print what it returned")
      .argument("<server...>", "the server (a command or an http(s) URL), then the tool, then key=value arguments")
      .option("--args <json>", "the arguments as a JSON object (key=value pairs after the tool override its keys)")
      .passThroughOptions(),
  )
    .addHelpText(
      "after",
      `
Options go before the server. The tool is the last word that is not key=value, or the word after --:
  toolsmith call node dist/main.js add title=Milk body="2 litres"
  toolsmith call --args '{"tags":["errands"]}' http://127.0.0.1:3000/mcp add title=Milk body=x
  toolsmith call node server.js --flag=x -- add title=Milk
A value is read as the tool's input schema says (text, number, true/false, JSON).`,
    )
    .action(async (words: string[], flags: ClientFlags & { args?: string }) => {
      const { target, tool, pairs } = splitCall(words);
      const base = parseArgsJson(flags.args);
      const options = clientOptions(flags);
      await useClient(
        target,
        options,
        async ({ client }, status) => {
          const listed = client.getServerCapabilities()?.tools ? (await client.listTools()).tools : [];
          const definition = listed.find((t) => t.name === tool);
          if (!definition) {
            const names = listed.map((t) => t.name).join(", ") || "none";
            throw new CliError(`the server has no tool "${tool}" (its tools: ${names})`);
          }
          const args = { ...base, ...parsePairs(pairs, definition.inputSchema) };
          status.show(`calling ${tool}…`);
          const result = await client.callTool(
            { name: tool, arguments: args },
            {
              timeout: options.timeout,
              onprogress: (p) =>
                status.show(
                  `${tool}: ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${p.message ? ` ${p.message}` : ""}`,
                ),
            },
          );
          status.clear();
          if (flags.json) out(`${JSON.stringify(result, null, 2)}\n`);
          else out(formatResult(result as never, colorsFor(process.stdout, cli.color())));
          if (result.isError) {
            if (!flags.json) err(`${colorsFor(process.stderr, cli.color()).red("error:")} ${tool} returned isError\n`);
            cli.setExitCode(EXIT.failed);
          }
        },
        cli.color() && !flags.json,
      );
    });
};
