import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ASKED, answerQuestions, outsideCalls, Ties, type UntiedQuestions } from "./ask.js";

// One live connection to the remote, made on first use and again on the use after it broke; a connect that failed
// waits out a backoff (doubling, bounded) before the next one, so a down remote costs its callers one quick error.

/** Where the remote is: a Streamable HTTP URL, or a command that speaks MCP on its stdio. */
export type RemoteTarget =
  | { readonly url: string | URL; readonly headers?: Readonly<Record<string, string>> }
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    };

/** Which era to speak to the remote: the client's `versionNegotiation.mode`. */
export type RemoteEra = "auto" | "legacy" | { readonly pin: "2026-07-28" };

/** How long to wait before connecting again after a failed connect. */
export interface Backoff {
  /** The first wait (default 250 ms). */
  readonly initialMs?: number;
  /** The longest wait (default 30 s). */
  readonly maxMs?: number;
}

/** Raised when the remote cannot be reached: its message says which remote and why, for the model to read. */
export class RemoteUnavailable extends Error {
  override readonly name = "RemoteUnavailable";
}

export interface LinkOptions {
  readonly target: RemoteTarget;
  readonly era: RemoteEra;
  readonly label: string;
  readonly backoff: Backoff | undefined;
  /** How long connecting may take. */
  readonly timeoutMs: number;
  readonly client: Partial<ClientOptions> | undefined;
  /** What becomes of a question that cannot say which call it belongs to (ask.ts). */
  readonly untiedQuestions: UntiedQuestions;
  /** Called with each new client before it connects (notification handlers). */
  readonly setup: (client: Client) => void;
  /** Called with each new client once connected. */
  readonly connected?: (client: Client) => void;
  /** The fetch the HTTP transport uses. */
  readonly fetch?: typeof fetch;
  /** The longest line the stdio transport reads (past it, it closes the connection). */
  readonly maxLineBytes?: number;
}

function transportOf(
  target: RemoteTarget,
  fetch: typeof globalThis.fetch | undefined,
  maxLineBytes: number | undefined,
): Transport {
  if ("url" in target) {
    return new StreamableHTTPClientTransport(new URL(String(target.url)), {
      requestInit: target.headers ? { headers: { ...target.headers } } : undefined,
      ...(fetch ? { fetch } : {}),
    });
  }
  return new StdioClientTransport({
    command: target.command,
    args: target.args ? [...target.args] : [],
    ...(target.env ? { env: { ...target.env } } : {}),
    ...(target.cwd ? { cwd: target.cwd } : {}),
    ...(maxLineBytes ? { maxBufferSize: maxLineBytes } : {}),
    stderr: "pipe",
  });
}

export class Link {
  readonly #options: LinkOptions;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #wait = 0;
  #retryAt = 0;
  #closed = false;

  constructor(options: LinkOptions) {
    this.#options = options;
  }

  get label(): string {
    return this.#options.label;
  }

  /** The connected client, connecting when there is none. */
  client(): Promise<Client> {
    if (this.#closed) return Promise.reject(new RemoteUnavailable(`${this.label} is closed`));
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#connecting) return this.#connecting;
    const now = Date.now();
    if (now < this.#retryAt) {
      const seconds = Math.ceil((this.#retryAt - now) / 1000);
      return Promise.reject(new RemoteUnavailable(`${this.label} is unreachable; trying again in ${seconds} s`));
    }
    this.#connecting = this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  // Outside every caller: the connection (its stdio pipe, its standalone GET stream) belongs to no call (ask.ts).
  #connect(): Promise<Client> {
    return outsideCalls(() => this.#connectNow());
  }

  async #connectNow(): Promise<Client> {
    const { era, client: extra, setup, target } = this.#options;
    // The remote's questions go to each call's own caller; `client.capabilities` declares less (or more).
    const capabilities = extra?.capabilities ?? ASKED;
    const client = new Client({ name: "toolsmith-remote", version: "1.0.0" }, {
      ...extra,
      capabilities,
      versionNegotiation: { mode: era },
    } as ClientOptions);
    const ties = "url" in target ? undefined : new Ties();
    answerQuestions(client, capabilities, this.#options.untiedQuestions === "sole-call" ? ties : undefined, this.label);
    setup(client);
    const transport = transportOf(target, this.#options.fetch, this.#options.maxLineBytes);
    try {
      await client.connect(transport, { timeout: this.#options.timeoutMs });
      ties?.attach(transport);
    } catch (error) {
      await client.close().catch(() => undefined);
      const { initialMs = 250, maxMs = 30_000 } = this.#options.backoff ?? {};
      this.#wait = Math.min(maxMs, this.#wait === 0 ? initialMs : this.#wait * 2);
      this.#retryAt = Date.now() + this.#wait;
      throw new RemoteUnavailable(`${this.label} is unreachable: ${(error as Error).message}`, { cause: error });
    }
    this.#wait = 0;
    this.#retryAt = 0;
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    if (this.#closed) {
      await client.close();
      throw new RemoteUnavailable(`${this.label} is closed`);
    }
    this.#client = client;
    this.#options.connected?.(client);
    return client;
  }

  /** Forget the client after a failure that may mean the connection broke; the next use connects again. */
  drop(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close();
  }
}
