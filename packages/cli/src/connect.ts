import {
  Client,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { isLogLevel, LATEST_STATELESS_VERSION, LOG_LEVELS, type LogLevel, levelPasses } from "@toolsmith/core";
import type { Answerer } from "./answers.js";
import { CliError, EXIT, usage } from "./exit-codes.js";
import { printable } from "./printable.js";
import { type LogParams, type RawChannel, tapTransport } from "./raw-requests.js";
import { SignInFailed } from "./sign-in/loopback.js";
import { describeFailure, SignIn, type SignInOptions } from "./sign-in/sign-in.js";
import { describeTarget, type Target } from "./target.js";
import { unavailableAware } from "./transient.js";
import { CLI_VERSION } from "./version.js";

export const ERAS = ["legacy", "modern", "auto"] as const;
export type Era = (typeof ERAS)[number];

/** The newest stateless revision, what `--era modern` pins. */
export const MODERN_VERSION = LATEST_STATELESS_VERSION;

export interface ConnectOptions {
  era: Era;
  /** Per-request time-out in milliseconds. */
  timeout: number;
  /** Where the server's stderr goes: shown live, or kept to explain a failure. */
  serverStderr: "show" | "keep";
  /** The least severe of the server's log messages asked for and shown; `off`: none. */
  logLevel: LogLevel | "off";
  /** Hears each log message the server sends (at or above `logLevel`). */
  onLog?: (params: LogParams) => void;
  /** How to sign in when an HTTP server asks; without it a server that asks is refused. */
  signIn?: SignInOptions;
  /**
   * Answers the server's form questions (handshake era: its `elicitation/create` requests, a 2025-11-25 task's
   * among them); with it the client declares form elicitation.
   */
  answer?: Answerer;
}

export interface Connection {
  client: Client;
  /** Requests the official client cannot send (the tasks extension's), on the same connection. */
  raw: RawChannel;
  /** The server's stderr so far, when kept. */
  stderr(): string;
  /** Whether the connection closed under us (a stdio server that exited). */
  lost(): boolean;
  /** The sign-in a request started (a step-up), for `useClient` to finish before running again. */
  signIn?: { pending(): boolean; complete(): Promise<void> };
  close(): Promise<void>;
}

export function parseEra(value: string): Era {
  if ((ERAS as readonly string[]).includes(value)) return value as Era;
  throw usage(`--era is one of ${ERAS.join(", ")}; got "${value}"`);
}

export function parseLogLevel(value: string): LogLevel | "off" {
  if (value === "off" || (LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel | "off";
  throw usage(`--log-level is one of ${[...LOG_LEVELS, "off"].join(", ")}; got "${value}"`);
}

export function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) throw usage(`--timeout is a whole number of milliseconds; got "${value}"`);
  return ms;
}

/** Connect the official client to the target in the era asked for; a failure is exit 3 with the server's stderr. */
export async function connect(target: Target, options: ConnectOptions): Promise<Connection> {
  const signIn = target.kind === "http" && options.signIn ? new SignIn(target.url, options.signIn) : undefined;
  let opened: Opened;
  try {
    opened = await open(target, options, signIn);
    if (opened.failure !== undefined && signIn?.pending() && isSignInAsked(opened.failure)) {
      // The server asked for sign-in: once the browser is back, connect again with the tokens.
      const asked = opened.transport;
      await signIn.complete((query) => (asked as StreamableHTTPClientTransport).finishAuth(query));
      opened = await open(target, options, signIn);
    }
  } catch (error) {
    await signIn?.close();
    if (error instanceof SignInFailed) throw new CliError(error.message);
    throw error;
  }
  const { client, tapped, transport, failure } = opened;
  if (failure !== undefined) {
    await signIn?.close();
    const why = failure instanceof Error ? failure.message : String(failure);
    const tail = opened.kept().trim() === "" ? "" : `\nthe server said on stderr:\n${opened.kept().trimEnd()}`;
    if (failure instanceof SignInFailed) throw new CliError(failure.message);
    if (isSignInAsked(failure))
      throw new CliError(`${describeTarget(target)} asks for sign-in: ${describeFailure(failure)}`);
    throw new CliError(`could not connect to ${describeTarget(target)}: ${why}${tail}`, EXIT.connect);
  }
  const level = options.logLevel === "off" ? undefined : options.logLevel;
  // The handshake era asks once per connection (2026-07-28 asks in each request's _meta, which the tap stamps).
  if (client.getProtocolEra() !== "modern" && client.getServerCapabilities()?.logging) {
    await client.setLoggingLevel(level ?? "emergency", { timeout: options.timeout }).catch((error: unknown) => {
      process.stderr.write(`toolsmith: the server refused logging/setLevel: ${printable((error as Error).message)}\n`);
    });
  }
  return {
    client,
    raw: tapped.raw,
    stderr: opened.kept,
    lost: tapped.closed,
    ...(signIn
      ? {
          signIn: {
            pending: () => signIn.pending(),
            complete: () => signIn.complete((query) => (transport as StreamableHTTPClientTransport).finishAuth(query)),
          },
        }
      : {}),
    close: async () => {
      await client.close();
      await signIn?.close();
    },
  };
}

/** A 401 the official client could not answer on its own (it gave a URL to sign in at, or the sign-in failed). */
export function isSignInAsked(error: unknown): boolean {
  return (
    error instanceof UnauthorizedError ||
    (error instanceof SdkHttpError && error.code === SdkErrorCode.ClientHttpAuthentication)
  );
}

interface Opened {
  client: Client;
  transport: Transport;
  tapped: ReturnType<typeof tapTransport>;
  kept(): string;
  /** Why connecting failed (the client is closed then). */
  failure?: unknown;
}

/** A client connected (or not: `failure`) over a new transport. */
async function open(target: Target, options: ConnectOptions, signIn: SignIn | undefined): Promise<Opened> {
  const mode = options.era === "modern" ? { pin: MODERN_VERSION } : options.era;
  const client = new Client(
    { name: "toolsmith", version: CLI_VERSION },
    {
      ...(options.answer ? { capabilities: { elicitation: { form: {} } } } : {}),
      versionNegotiation: { mode, probe: { timeoutMs: Math.min(options.timeout, 10_000) } },
    },
  );
  const answer = options.answer;
  if (answer) {
    client.setRequestHandler("elicitation/create", async (request, extra) => {
      const params = request.params as unknown as Record<string, unknown>;
      return (await answer({ method: request.method, params }, extra.mcpReq.signal)) as never;
    });
  }
  let kept = "";
  const transport =
    target.kind === "http"
      ? new StreamableHTTPClientTransport(target.url, {
          fetch: signIn ? signIn.fetch(unavailableAware()) : unavailableAware(),
          ...(signIn ? { authProvider: signIn.provider } : {}),
        })
      : new StdioClientTransport({
          command: target.command,
          args: target.args,
          env: { ...process.env } as Record<string, string>,
          stderr: options.serverStderr === "show" ? "inherit" : "pipe",
        });
  if (transport instanceof StdioClientTransport && options.serverStderr === "keep") {
    transport.stderr?.on("data", (chunk: Buffer) => {
      kept = (kept + chunk.toString("utf8")).slice(-4000);
    });
  }
  const level = options.logLevel === "off" ? undefined : options.logLevel;
  const tapped = tapTransport(transport as Transport, {
    timeoutMs: options.timeout,
    ...(level ? { logLevel: level } : {}),
    // The server may send what was not asked for (a handshake-era server until logging/setLevel): shown only from the level.
    onLog: (params) => {
      if (level && options.onLog && (!isLogLevel(params.level) || levelPasses(params.level, level)))
        options.onLog(params);
    },
  });
  const opened: Opened = { client, transport, tapped, kept: () => kept };
  try {
    await client.connect(tapped.transport, { timeout: options.timeout });
  } catch (error) {
    await client.close().catch(() => {});
    opened.failure = error;
  }
  return opened;
}
