import { parseArgs } from "node:util";

export const TRANSPORTS = ["stdio", "http", "both"] as const;
export const DIALECTS = ["tc39", "legacy"] as const;
export const AUTHS = ["none", "verify", "proxy"] as const;
export const RUNTIMES = ["node", "bun", "deno", "workers"] as const;
export type Transport = (typeof TRANSPORTS)[number];
export type Dialect = (typeof DIALECTS)[number];
/** Sign-in for the HTTP server: none, verify an identity provider's tokens, or the OAuth proxy in front of one. */
export type Auth = (typeof AUTHS)[number];
/** What runs the built server: Node, Bun, Deno, or Cloudflare Workers (workerd; HTTP only). */
export type Runtime = (typeof RUNTIMES)[number];

/** Everything that decides what is generated. */
export interface ProjectOptions {
  /** The npm package name, also the server's name. */
  name: string;
  runtime: Runtime;
  transport: Transport;
  dialect: Dialect;
  tests: boolean;
  /** `@toolsmith/redis`: with REDIS_URL set, the HTTP server keeps its sessions and tasks in Redis. */
  redis: boolean;
  /** `@toolsmith/otel` and an OpenTelemetry SDK set-up: a span per operation, sent over OTLP. */
  otel: boolean;
  /** `@toolsmith/auth` on the HTTP server: `jwtVerifier` (verify) or `oauthProxy` (proxy), and a scoped tool. */
  auth: Auth;
}

export const DEFAULTS = {
  runtime: "node",
  transport: "stdio",
  dialect: "tc39",
  tests: true,
  redis: false,
  otel: false,
  auth: "none",
} as const;

/** What the command line said; anything left undefined is asked for (or defaulted with --yes). */
export interface CliArgs {
  target: string | undefined;
  runtime: Runtime | undefined;
  transport: Transport | undefined;
  dialect: Dialect | undefined;
  tests: boolean | undefined;
  redis: boolean | undefined;
  otel: boolean | undefined;
  auth: Auth | undefined;
  yes: boolean;
  force: boolean;
  from: string | undefined;
  help: boolean;
}

/** A mistake on the command line, said to the user without a stack. */
export class UsageError extends Error {
  override name = "UsageError";
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
}

/**
 * Why these answers cannot go together, or undefined when they can: a Worker serves HTTP alone (it has no stdin),
 * and Redis, tracing and sign-in are set up for Node only.
 */
export function runtimeProblem(
  runtime: Runtime,
  chosen: {
    transport?: Transport | undefined;
    redis?: boolean | undefined;
    otel?: boolean | undefined;
    auth?: Auth | undefined;
  },
): string | undefined {
  if (runtime === "workers" && chosen.transport !== undefined && chosen.transport !== "http") {
    return "--runtime workers serves HTTP only (a Worker has no stdin): give --transport http or leave it out";
  }
  if (runtime === "node") return undefined;
  const extra = chosen.redis
    ? "--redis"
    : chosen.otel
      ? "--otel"
      : chosen.auth && chosen.auth !== "none"
        ? "--auth"
        : undefined;
  return extra && `${extra} is set up for --runtime node only`;
}

/**
 * Parse `create-toolsmith [dir] [--runtime …] [--transport …] [--dialect …] [--no-tests] [--redis] [--otel] [--auth …] [--yes]
 * [--force] [--from path]`.
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one project directory at most (got ${positionals.join(", ")})`);
  for (const flag of ["tests", "redis", "otel"] as const) {
    if (values[flag] && values[`no-${flag}`]) throw new UsageError(`--${flag} and --no-${flag} contradict each other`);
  }
  const runtime = oneOf("runtime", values.runtime, RUNTIMES);
  const transport = oneOf("transport", values.transport, TRANSPORTS);
  if (values.redis && transport === "stdio") {
    throw new UsageError("--redis is for a server that serves HTTP: give --transport http or both");
  }
  const auth = oneOf("auth", values.auth, AUTHS);
  if (auth !== undefined && auth !== "none" && transport === "stdio") {
    throw new UsageError("--auth is for a server that serves HTTP: give --transport http or both");
  }
  const redis = flag(values.redis, values["no-redis"]);
  const otel = flag(values.otel, values["no-otel"]);
  const problem = runtime && runtimeProblem(runtime, { transport, redis, otel, auth });
  if (problem) throw new UsageError(problem);
  return {
    target: positionals[0],
    runtime,
    transport,
    dialect: oneOf("dialect", values.dialect, DIALECTS),
    tests: flag(values.tests, values["no-tests"]),
    redis,
    otel,
    auth,
    yes: values.yes ?? false,
    force: values.force ?? false,
    from: values.from,
    help: values.help ?? false,
  };
}

const flag = (on: boolean | undefined, off: boolean | undefined) => (off ? false : on ? true : undefined);

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      runtime: { type: "string", short: "r" },
      transport: { type: "string", short: "t" },
      dialect: { type: "string", short: "d" },
      tests: { type: "boolean" },
      "no-tests": { type: "boolean" },
      redis: { type: "boolean" },
      "no-redis": { type: "boolean" },
      otel: { type: "boolean" },
      "no-otel": { type: "boolean" },
      auth: { type: "string" },
      yes: { type: "boolean", short: "y" },
      force: { type: "boolean", short: "f" },
      from: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

export const USAGE = `Usage: npm create toolsmith@latest [dir] -- [options]

Scaffold a Toolsmith MCP server in dir (asked for when omitted).

Options:
  -r, --runtime node|bun|deno|workers
                                    what runs the server: Node, Bun, Deno or Cloudflare Workers (HTTP only)
                                    (default: ${DEFAULTS.runtime})
  -t, --transport stdio|http|both   how hosts reach the server (default: ${DEFAULTS.transport}; http on workers)
  -d, --dialect tc39|legacy         decorator dialect: TC39 standard or experimentalDecorators (default: ${DEFAULTS.dialect})
      --no-tests                    leave out the vitest setup and the example test
      --redis                       add @toolsmith/redis: with REDIS_URL set, sessions and tasks live in Redis (HTTP, Node)
      --otel                        add @toolsmith/otel and an OpenTelemetry SDK set-up sending spans over OTLP (Node)
      --auth none|verify|proxy      sign-in for the HTTP server (@toolsmith/auth): verify an identity provider's
                                    tokens, or be the OAuth server in front of one (proxy); a scoped tool (Node; default: none)
  -y, --yes                         take the defaults for everything not given, ask nothing
  -f, --force                       write into a non-empty directory
      --from <checkout>             take the Toolsmith packages from a local checkout (packed tarballs), not the registry
  -h, --help                        show this help
`;
