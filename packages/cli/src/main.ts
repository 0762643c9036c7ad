import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { Command, CommanderError, Option } from "commander";
import { addStub, KINDS, type Kind } from "./add.js";
import { formatResult, parseArgsJson, parsePairs } from "./call.js";
import { colorsFor } from "./colors.js";
import { type ConnectOptions, connect, MODERN_VERSION, parseEra, parseTimeout } from "./connect.js";
import { runDev } from "./dev/supervisor.js";
import { CliError, EXIT, usage } from "./exit-codes.js";
import { HOSTS, parseEnv, parseHost, type Server, snippetFor } from "./host-config.js";
import { formatListing, listAll, serverLine } from "./list.js";
import { openLog } from "./log-sink.js";
import { describeTarget, parseTarget, splitCall, splitWords, type Target } from "./target.js";
import { CLI_VERSION } from "./version.js";
import { runWire } from "./wire.js";

const EXIT_HELP = `
Exit codes:
  0  done
  1  a tool returned isError, the server answered with an error, or the command failed
  2  bad usage (unknown option, missing or malformed argument)
  3  could not start, reach or initialize the server`;

interface ClientFlags {
  era: string;
  json?: boolean;
  timeout: string;
  verbose?: boolean;
}

const out = (text: string) => process.stdout.write(text);
const err = (text: string) => process.stderr.write(text);

function clientOptions(flags: ClientFlags): ConnectOptions {
  return {
    era: parseEra(flags.era),
    timeout: parseTimeout(flags.timeout),
    serverStderr: flags.verbose ? "show" : "keep",
  };
}

function addClientOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--era <era>", `protocol era: legacy (2025 handshake), modern (${MODERN_VERSION}) or auto`).default(
        "auto",
      ),
    )
    .option("--json", "print JSON for scripts instead of text for people")
    .option("--timeout <ms>", "time-out for each request, in milliseconds", "60000")
    .option("-v, --verbose", "show the server's stderr as it runs");
}

/** A person is watching: say what is happening on stderr, on one line that is cleared afterwards. */
function statusLine(enabled: boolean) {
  const live = enabled && process.stderr.isTTY === true;
  return {
    show: (text: string) => live && process.stderr.write(`\r\x1b[2K${text}`),
    clear: () => live && process.stderr.write("\r\x1b[2K"),
  };
}

async function useClient<T>(
  target: Target,
  options: ConnectOptions,
  run: (connection: Awaited<ReturnType<typeof connect>>, status: ReturnType<typeof statusLine>) => Promise<T>,
  live: boolean,
): Promise<T> {
  const status = statusLine(live);
  status.show(`connecting to ${describeTarget(target)}…`);
  let connection: Awaited<ReturnType<typeof connect>>;
  try {
    connection = await connect(target, options);
  } finally {
    status.clear();
  }
  try {
    return await run(connection, status);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof ProtocolError)
      throw new CliError(`the server answered with error ${error.code}: ${error.message}`);
    throw new CliError(error instanceof Error ? error.message : String(error));
  } finally {
    status.clear();
    await connection.close().catch(() => {});
  }
}

function readPackage(dir: string): { name?: string; bin?: string | Record<string, string>; main?: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

function configServer(flags: { name?: string; command?: string; args?: string; url?: string; env: string[] }): Server {
  const pkg = readPackage(process.cwd());
  const name = flags.name ?? pkg?.name?.replace(/^@[^/]+\//, "");
  if (!name) throw usage("say the server's name with --name (there is no package.json name here to take it from)");
  if (flags.url !== undefined) {
    if (flags.command !== undefined || flags.args !== undefined)
      throw usage("--url is for HTTP; it takes no --command or --args");
    parseTarget([flags.url]);
    if (!/^https?:\/\//i.test(flags.url)) throw usage(`--url is an http(s) URL; got "${flags.url}"`);
    return { name, kind: "http", url: flags.url };
  }
  let args: string[] = [];
  if (flags.args !== undefined) {
    if (flags.args.trim().startsWith("[")) {
      const parsed = (() => {
        try {
          return JSON.parse(flags.args) as unknown;
        } catch {
          return undefined;
        }
      })();
      if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string")) {
        throw usage(`--args is a JSON array of strings or words; got ${flags.args}`);
      }
      args = parsed;
    } else args = splitWords(flags.args);
  }
  const env = parseEnv(flags.env);
  if (flags.command !== undefined) {
    const words = splitWords(flags.command);
    if (words.length === 0) throw usage("--command is empty");
    return { name, kind: "stdio", command: words[0] as string, args: [...words.slice(1), ...args], env };
  }
  const bin = typeof pkg?.bin === "string" ? pkg.bin : pkg?.bin ? Object.values(pkg.bin)[0] : undefined;
  const entry = bin ?? pkg?.main;
  if (!entry)
    throw usage(
      "say how to start the server with --command (or --url for HTTP); package.json here names no bin or main",
    );
  return { name, kind: "stdio", command: "node", args: [resolve(entry), ...args], env };
}

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
  const color = () => program.opts<{ color: boolean }>().color;

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
      const wire = flags.wire ? openLog(flags.log, color()) : undefined;
      code = await runDev(entry, args, { watch: flags.watch, color: color(), ...(wire ? { wire } : {}) });
      await wire?.close();
    });

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
      const options = clientOptions(flags);
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
            const c = colorsFor(process.stdout, color());
            out(`${serverLine(client, target.kind === "http" ? "HTTP" : "stdio", c)}\n${formatListing(listing, c)}`);
          }
        },
        color() && !flags.json,
      );
    });

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
          else out(formatResult(result as never, colorsFor(process.stdout, color())));
          if (result.isError) {
            if (!flags.json) err(`${colorsFor(process.stderr, color()).red("error:")} ${tool} returned isError\n`);
            code = EXIT.failed;
          }
        },
        color() && !flags.json,
      );
    });

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
      const sink = openLog(flags.log, color());
      code = await runWire(target.command, target.args, sink);
      await sink.close();
    });

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
      const c = colorsFor(process.stdout, color());
      const rel = (file: string) => file.replace(`${resolve(flags.dir)}/`, "");
      out(`${c.green("added")} ${kind} ${c.cyan(name)} to ${added.className} in ${rel(added.classFile)}\n`);
      out(`${c.green("added")} its test ${rel(added.testFile)}\n`);
    });

  program
    .command("config")
    .description("print the snippet that registers a server in an MCP host")
    .argument("<host>", HOSTS.join(" | "))
    .option("--name <name>", "the server's name in the host (default: package.json's name)")
    .option("--command <command>", "the command that starts it (default: node and package.json's bin or main)")
    .option("--args <args>", "its arguments: words, or a JSON array of strings")
    .option("--url <url>", "an HTTP server's URL instead of a command")
    .option(
      "--env <KEY=VALUE>",
      "an environment variable for the server (repeatable)",
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .addHelpText("after", "\nThe snippet goes to stdout, where to put it to stderr.")
    .action((host: string, flags: { name?: string; command?: string; args?: string; url?: string; env: string[] }) => {
      const snippet = snippetFor(parseHost(host), configServer(flags));
      err(`${colorsFor(process.stderr, color()).dim(`# ${snippet.where}`)}\n`);
      out(snippet.text);
    });

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
    const c = colorsFor(process.stderr, color());
    if (error instanceof CliError) {
      err(`${c.red("error:")} ${error.message}\n`);
      return error.code;
    }
    err(`${c.red("error:")} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.failed;
  }
}
