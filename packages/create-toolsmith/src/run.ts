import * as prompts from "@clack/prompts";
import { packageNameProblems, projectFromTarget } from "./names.js";
import {
  type Auth,
  type CliArgs,
  DEFAULTS,
  type Dialect,
  type ProjectOptions,
  parseCliArgs,
  type Runtime,
  runtimeProblem,
  type Transport,
  USAGE,
  UsageError,
} from "./options.js";
import { CheckoutError } from "./pack-local.js";
import { scaffold, targetProblem } from "./scaffold.js";

export interface RunIo {
  cwd: string;
  /** Ask with prompts (a TTY on both ends); otherwise plain lines and the defaults. */
  interactive: boolean;
  out(line: string): void;
  err(line: string): void;
  relative(path: string): string;
}

class Cancelled extends Error {}

const yesNo = (value: boolean) => (value ? "yes" : "no");

function answered<T>(value: T): Exclude<T, symbol> {
  if (prompts.isCancel(value)) throw new Cancelled();
  return value as Exclude<T, symbol>;
}

/** The whole command; returns the exit code. */
export async function run(argv: readonly string[], io: RunIo): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`create-toolsmith: ${error.message}`);
    io.err("Run with --help for the options.");
    return 2;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  const ask = io.interactive && !args.yes;
  try {
    if (ask) prompts.intro("create-toolsmith");
    else if (!args.yes) io.out("Not a terminal: taking the defaults for anything not given as a flag.");
    const target =
      args.target ??
      (ask
        ? answered(
            await prompts.text({
              message: "Project name (also its directory)",
              placeholder: "my-server",
              defaultValue: "my-server",
              validate: (value) => {
                const problems = packageNameProblems(projectFromTarget(value || "my-server", io.cwd).name);
                return problems.length > 0 ? problems.join("; ") : undefined;
              },
            }),
          )
        : "my-server");
    const { dir, name } = projectFromTarget(target, io.cwd);
    const problems = packageNameProblems(name);
    if (problems.length > 0) {
      io.err(`create-toolsmith: "${name}" is not a valid npm package name: ${problems.join("; ")}.`);
      return 1;
    }
    const blocked = targetProblem(dir, args.force);
    if (blocked) {
      io.err(`create-toolsmith: ${blocked}.`);
      return 1;
    }
    const runtime = args.runtime ?? (ask ? await askRuntime() : DEFAULTS.runtime);
    const problem = runtimeProblem(runtime, args);
    if (problem) {
      io.err(`create-toolsmith: ${problem}.`);
      return 2;
    }
    const node = runtime === "node";
    // A Worker serves HTTP alone: nothing to ask.
    const transport =
      args.transport ?? (runtime === "workers" ? "http" : ask ? await askTransport() : DEFAULTS.transport);
    if (args.redis && transport === "stdio") {
      io.err("create-toolsmith: --redis is for a server that serves HTTP: give --transport http or both.");
      return 2;
    }
    if (args.auth !== undefined && args.auth !== "none" && transport === "stdio") {
      io.err("create-toolsmith: --auth is for a server that serves HTTP: give --transport http or both.");
      return 2;
    }
    const options: ProjectOptions = {
      name,
      runtime,
      transport,
      dialect: args.dialect ?? (ask ? await askDialect() : DEFAULTS.dialect),
      tests:
        args.tests ??
        (ask ? answered(await prompts.confirm({ message: "Include the test setup (vitest)?" })) : DEFAULTS.tests),
      redis:
        node &&
        transport !== "stdio" &&
        (args.redis ??
          (ask
            ? answered(
                await prompts.confirm({
                  message: "Keep sessions and tasks in Redis when REDIS_URL is set (@toolsmith/redis)?",
                  initialValue: false,
                }),
              )
            : DEFAULTS.redis)),
      otel:
        node &&
        (args.otel ??
          (ask
            ? answered(
                await prompts.confirm({
                  message: "Trace with OpenTelemetry, sending spans over OTLP (@toolsmith/otel)?",
                  initialValue: false,
                }),
              )
            : DEFAULTS.otel)),
      auth: !node || transport === "stdio" ? "none" : (args.auth ?? (ask ? await askAuth() : DEFAULTS.auth)),
    };
    const spin = ask ? prompts.spinner() : undefined;
    const doing = args.from ? `Packing the Toolsmith packages from ${args.from} and writing` : "Writing";
    if (spin) spin.start(`${doing} ${io.relative(dir)}`);
    else
      io.out(
        `${doing} ${io.relative(dir)} (runtime ${options.runtime}, transport ${options.transport}, dialect ${options.dialect}, tests ${yesNo(options.tests)}, redis ${yesNo(options.redis)}, otel ${yesNo(options.otel)}, auth ${options.auth})`,
      );
    const written = await scaffold({ ...options, dir, from: args.from }).catch((error: unknown) => {
      spin?.error("Stopped");
      throw error;
    });
    if (spin) spin.stop(`Wrote ${written.length} files`);
    else io.out(`Wrote ${written.length} files.`);
    const next = [
      `cd ${io.relative(dir)}`,
      "npm install",
      "npm run build",
      ...(options.tests ? ["npm test"] : []),
      ...(options.transport === "http" ? ["npm start   # then, in another terminal:"] : []),
      "npm run inspect",
      ...(runtime === "workers" ? ["npm run deploy   # see README.md first: STATE_KEY and ALLOWED_HOSTS"] : []),
    ];
    if (ask) prompts.outro(`Next:\n   ${next.join("\n   ")}`);
    else io.out(`Next:\n  ${next.join("\n  ")}`);
    return 0;
  } catch (error) {
    if (error instanceof Cancelled) {
      prompts.cancel("Cancelled: nothing was written.");
      return 130;
    }
    if (error instanceof CheckoutError) {
      io.err(`create-toolsmith: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** The answer to one choice, `initialValue` unless another is picked. */
async function choose<T extends string>(message: string, initialValue: T, options: prompts.Option<T>[]): Promise<T> {
  return answered(await prompts.select<T>({ message, initialValue, options }));
}

function askTransport(): Promise<Transport> {
  return choose<Transport>("Transport", DEFAULTS.transport, [
    { value: "stdio", label: "stdio", hint: "the host starts the server as a process" },
    { value: "http", label: "Streamable HTTP", hint: "the server listens; hosts connect by URL" },
    { value: "both", label: "both", hint: "stdio, or HTTP with --http" },
  ]);
}

function askRuntime(): Promise<Runtime> {
  return choose<Runtime>("Runtime", DEFAULTS.runtime, [
    { value: "node", label: "Node", hint: "node dist/main.js" },
    { value: "bun", label: "Bun", hint: "Bun.serve, or stdio" },
    { value: "deno", label: "Deno", hint: "Deno.serve, or stdio" },
    { value: "workers", label: "Cloudflare Workers", hint: "a Worker's fetch handler: HTTP, wrangler dev and deploy" },
  ]);
}

function askAuth(): Promise<Auth> {
  return choose<Auth>("Sign-in for the HTTP server (@toolsmith/auth)", DEFAULTS.auth, [
    { value: "none", label: "none", hint: "anyone who reaches it may call it" },
    { value: "verify", label: "verify tokens", hint: "your identity provider issues them (ISSUER, AUDIENCE)" },
    { value: "proxy", label: "OAuth proxy", hint: "this server signs people in through an OpenID provider" },
  ]);
}

function askDialect(): Promise<Dialect> {
  return choose<Dialect>("Decorator dialect", DEFAULTS.dialect, [
    { value: "tc39", label: "TC39 standard decorators", hint: "TypeScript's default" },
    { value: "legacy", label: "legacy experimentalDecorators", hint: "for codebases already using them" },
  ]);
}
