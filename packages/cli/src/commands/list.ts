import { colorsFor } from "../colors.js";
import { formatListing, listAll, serverLine } from "../list.js";
import { parseTarget } from "../target.js";
import { addClientOptions, type ClientFlags, clientOptions, useClient } from "./client.js";
import { type CommandRegistration, out } from "./context.js";

/** `toolsmith list <server…>`: a server's tools, resources, templates and prompts. */
export const listCommand: CommandRegistration = (program, cli) => {
  addClientOptions(
    program
      .command("list")
      .description("list a server's tools (with their arguments), resources, templates and prompts")
      .argument("<server...>", "the command that starts the server (stdio), or its http(s) URL")
      .passThroughOptions(),
  )
    .addHelpText("after", "\nOptions go before the server: toolsmith list --era modern node dist/main.js --http")
    .action(async (words: string[], flags: ClientFlags) => {
      const target = parseTarget(words);
      const options = clientOptions(flags, cli.color());
      await useClient(
        target,
        options,
        async ({ client }) => {
          const listing = await listAll(client);
          if (flags.json) {
            const server = {
              ...client.getServerVersion(),
              protocolVersion: client.getNegotiatedProtocolVersion(),
              era: client.getProtocolEra(),
            };
            out(`${JSON.stringify({ server, ...listing }, null, 2)}\n`);
          } else {
            const c = colorsFor(process.stdout, cli.color());
            out(`${serverLine(client, target.kind === "http" ? "HTTP" : "stdio", c)}\n${formatListing(listing, c)}`);
          }
        },
        cli.color() && !flags.json,
      );
    });
};
