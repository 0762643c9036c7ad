import { isHttpsUrl, ProtocolError } from "@modelcontextprotocol/client";
import { LOG_LEVELS } from "@toolsmith/core";
import { type Command, Option } from "commander";
import { colorsFor } from "../colors.js";
import {
  type Connection,
  type ConnectOptions,
  connect,
  isSignInAsked,
  MODERN_VERSION,
  parseEra,
  parseLogLevel,
  parseTimeout,
} from "../connect.js";
import { CliError, EXIT, usage } from "../exit-codes.js";
import { ConnectionClosed } from "../raw-requests.js";
import { formatLog } from "../server-log.js";
import { SignInFailed } from "../sign-in/loopback.js";
import { describeFailure, type SignInOptions } from "../sign-in/sign-in.js";
import { describeTarget, type Target } from "../target.js";
import { Unavailable } from "../transient.js";

/** The options of a command that talks to a server as a client (`list`, `call`). */
export interface ClientFlags {
  era: string;
  json?: boolean;
  logLevel: string;
  timeout: string;
  verbose?: boolean;
  clientId?: string;
  clientMetadataUrl?: string;
  browser: boolean;
  callbackPort?: string;
  signInTimeout: string;
}

/** The client flags, checked: a bad `--era`, `--log-level` or `--timeout` is exit 2. */
export function clientOptions(flags: ClientFlags, color = true): ConnectOptions {
  const c = colorsFor(process.stderr, color);
  return {
    era: parseEra(flags.era),
    timeout: parseTimeout(flags.timeout),
    serverStderr: flags.verbose ? "show" : "keep",
    logLevel: parseLogLevel(flags.logLevel),
    // On a terminal the live status line is cleared first; the next status shows it again.
    onLog: (params) => process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[2K" : ""}${formatLog(params, c)}\n`),
    signIn: signInOptions(flags),
  };
}

/** The sign-in flags, checked: a bad port, time-out or metadata URL is exit 2. */
function signInOptions(flags: ClientFlags): SignInOptions {
  const timeoutMs = Number(flags.signInTimeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw usage(`--sign-in-timeout is a whole number of milliseconds; got "${flags.signInTimeout}"`);
  const options: SignInOptions = { timeoutMs, noBrowser: !flags.browser };
  if (flags.callbackPort !== undefined) {
    const port = Number(flags.callbackPort);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw usage(`--callback-port is a port number (1 to 65535); got "${flags.callbackPort}"`);
    options.callbackPort = port;
  }
  if (flags.clientId !== undefined) {
    if (flags.clientId.trim() === "") throw usage("--client-id is empty");
    options.clientId = flags.clientId;
  }
  if (flags.clientMetadataUrl !== undefined) {
    if (!isHttpsUrl(flags.clientMetadataUrl))
      throw usage(`--client-metadata-url is an https URL with a path; got "${flags.clientMetadataUrl}"`);
    options.clientMetadataUrl = flags.clientMetadataUrl;
  }
  return options;
}

/** `command` with the client options: `--era`, `--json`, `--log-level`, `--timeout`, `--verbose`. */
export function addClientOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--era <era>", `protocol era: legacy (2025 handshake), modern (${MODERN_VERSION}) or auto`).default(
        "auto",
      ),
    )
    .option("--json", "print JSON for scripts instead of text for people")
    .addOption(
      new Option("--log-level <level>", "the server's log messages shown on stderr, from this level up")
        .choices([...LOG_LEVELS, "off"])
        .default("info"),
    )
    .option("--timeout <ms>", "time-out for each request, in milliseconds", "60000")
    .option("-v, --verbose", "show the server's stderr as it runs")
    .option("--client-id <id>", "sign in as this client, registered beforehand with the server's authorization server")
    .option("--client-metadata-url <url>", "sign in as the client this https metadata document describes, where taken")
    .option("--no-browser", "when the server asks for sign-in, print the URL but do not open a browser")
    .option(
      "--callback-port <port>",
      "the 127.0.0.1 port the browser comes back to after sign-in (default: a free one)",
    )
    .option("--sign-in-timeout <ms>", "how long to wait for the browser to come back, in milliseconds", "300000");
}

/** One stderr line that says what is happening, cleared afterwards. */
export interface StatusLine {
  show(text: string): void;
  clear(): void;
}

/** A person is watching: say what is happening on stderr, on one line that is cleared afterwards. */
function statusLine(enabled: boolean): StatusLine {
  const live = enabled && process.stderr.isTTY === true;
  return {
    show: (text) => {
      if (live) process.stderr.write(`\r\x1b[2K${text}`);
    },
    clear: () => {
      if (live) process.stderr.write("\r\x1b[2K");
    },
  };
}

/**
 * Connect to `target`, `run` with the connection, then close it; what `run` throws becomes a one-line CliError:
 * exit 3 when the server went away (a stdio server that exited, an HTTP server unreachable or answering 502/503/504),
 * else exit 1, with the server's error code when it answered with one. `live` shows progress on a terminal.
 */
export async function useClient<T>(
  target: Target,
  options: ConnectOptions,
  run: (connection: Connection, status: StatusLine) => Promise<T>,
  live: boolean,
): Promise<T> {
  const status = statusLine(live);
  status.show(`connecting to ${describeTarget(target)}…`);
  let connection: Connection;
  try {
    connection = await connect(target, options);
  } finally {
    status.clear();
  }
  try {
    try {
      return await run(connection, status);
    } catch (error) {
      // A request asked for more scopes (or a new sign-in): once the browser is back, run again with the new token.
      if (!connection.signIn?.pending() || !isSignInAsked(error)) throw error;
      status.clear();
      await connection.signIn.complete();
      return await run(connection, status);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof SignInFailed) throw new CliError(error.message);
    if (isSignInAsked(error))
      throw new CliError(`${describeTarget(target)} asks for sign-in: ${describeFailure(error)}`);
    if (connection.lost() || error instanceof ConnectionClosed) throw serverGone(target, connection);
    if (error instanceof Unavailable) throw new CliError(error.message, EXIT.connect);
    if (error instanceof ProtocolError)
      throw new CliError(`the server answered with error ${error.code}: ${error.message}`);
    throw new CliError(error instanceof Error ? error.message : String(error));
  } finally {
    status.clear();
    await connection.close().catch(() => {});
  }
}

/** Exit 3: the connection closed under a command (for stdio, the server exited); with what the server said last. */
export function serverGone(target: Target, connection: Connection, what = ""): CliError {
  const kept = connection.stderr().trim();
  const tail = kept === "" ? "" : `\nthe server said on stderr:\n${connection.stderr().trimEnd()}`;
  return new CliError(`the connection to ${describeTarget(target)} closed${what}${tail}`, EXIT.connect);
}
