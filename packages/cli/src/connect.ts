import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { CliError, EXIT, usage } from "./exit-codes.js";
import { type RawChannel, tapTransport } from "./raw-requests.js";
import { describeTarget, type Target } from "./target.js";
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
}

export interface Connection {
  client: Client;
  /** Requests the official client cannot send (the tasks extension's), on the same connection. */
  raw: RawChannel;
  /** The server's stderr so far, when kept. */
  stderr(): string;
  close(): Promise<void>;
}

export function parseEra(value: string): Era {
  if ((ERAS as readonly string[]).includes(value)) return value as Era;
  throw usage(`--era is one of ${ERAS.join(", ")}; got "${value}"`);
}

export function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) throw usage(`--timeout is a whole number of milliseconds; got "${value}"`);
  return ms;
}

/** Connect the official client to the target in the era asked for; a failure is exit 3 with the server's stderr. */
export async function connect(target: Target, options: ConnectOptions): Promise<Connection> {
  const mode = options.era === "modern" ? { pin: MODERN_VERSION } : options.era;
  const client = new Client(
    { name: "toolsmith", version: CLI_VERSION },
    { versionNegotiation: { mode, probe: { timeoutMs: Math.min(options.timeout, 10_000) } } },
  );
  let kept = "";
  const transport =
    target.kind === "http"
      ? new StreamableHTTPClientTransport(target.url)
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
  const tapped = tapTransport(transport);
  try {
    await client.connect(tapped.transport, { timeout: options.timeout });
  } catch (error) {
    await client.close().catch(() => {});
    const why = error instanceof Error ? error.message : String(error);
    const tail = kept.trim() === "" ? "" : `\nthe server said on stderr:\n${kept.trimEnd()}`;
    throw new CliError(`could not connect to ${describeTarget(target)}: ${why}${tail}`, EXIT.connect);
  }
  return { client, raw: tapped.raw, stderr: () => kept, close: () => client.close() };
}
