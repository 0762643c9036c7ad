import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { colorsFor } from "../colors.js";
import { usage } from "../exit-codes.js";
import { HOSTS, parseEnv, parseHost, type Server, snippetFor } from "../host-config.js";
import { parseTarget, splitWords } from "../target.js";
import { type CommandRegistration, err, out } from "./context.js";

interface ConfigFlags {
  name?: string;
  command?: string;
  args?: string;
  url?: string;
  env: string[];
}

function readPackage(dir: string): { name?: string; bin?: string | Record<string, string>; main?: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

/** The server the flags describe; what they leave out comes from package.json in the working directory. */
function configServer(flags: ConfigFlags): Server {
  const pkg = readPackage(process.cwd());
  const name = flags.name ?? pkg?.name?.replace(/^@[^/]+\//, "");
  if (!name) throw usage("say the server's name with --name (there is no package.json name here to take it from)");
  if (flags.url !== undefined) {
    // Said rather than dropped: an --env given with --url would reach no server.
    if (flags.command !== undefined || flags.args !== undefined || flags.env.length > 0)
      throw usage("--url is for HTTP; it takes no --command, --args or --env (the server's environment is its own)");
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

/** `toolsmith config <host>`: the snippet that registers a server in an MCP host. */
export const configCommand: CommandRegistration = (program, cli) => {
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
    .action((host: string, flags: ConfigFlags) => {
      const snippet = snippetFor(parseHost(host), configServer(flags));
      err(`${colorsFor(process.stderr, cli.color()).dim(`# ${snippet.where}`)}\n`);
      out(snippet.text);
    });
};
