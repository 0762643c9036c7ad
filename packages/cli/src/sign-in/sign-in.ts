import {
  extractWWWAuthenticateParams,
  type FetchLike,
  OAuthError,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { printable } from "../printable.js";
import { type Opener, openBrowser, openerFor } from "./browser.js";
import { CredentialStore } from "./credentials.js";
import { type LoopbackReceiver, SignInFailed, startLoopbackReceiver } from "./loopback.js";
import { CliOAuthProvider } from "./provider.js";

/** How `toolsmith` signs in to a server that asks (`--client-id`, `--no-browser`, …). */
export interface SignInOptions {
  /** A client registered beforehand with the authorization server. */
  clientId?: string;
  /** The https URL of a client ID metadata document, for servers that take one. */
  clientMetadataUrl?: string;
  /** Never open a browser, only print the URL. */
  noBrowser?: boolean;
  /** The loopback port the browser comes back to (a pre-registered redirect URI's); else the registered one, else free. */
  callbackPort?: number;
  /** How long to wait for the browser to come back, in ms. */
  timeoutMs: number;
  /** The credential folder (default `$XDG_CONFIG_HOME/toolsmith`). */
  store?: CredentialStore;
  /** How to open a URL here (default: `openerFor`'s choice, started detached). */
  open?: (url: string) => boolean;
  /** Where the person is told what to do (default stderr). */
  say?: (text: string) => void;
}

/** At most this many sign-ins per command: the first, and one step-up. */
const MAX_SIGN_INS = 2;

/** A sign-in `useClient` can finish: the browser's answer, exchanged for tokens by the transport that asked. */
export interface PendingSignIn {
  /** Whether an authorization URL was given and its answer is awaited. */
  pending(): boolean;
  /** Wait for the answer and hand it to `finish` (the transport's `finishAuth`); throws a `SignInFailed`. */
  complete(finish: (query: URLSearchParams) => Promise<void>): Promise<void>;
}

/**
 * The sign-in of one command against one server: the official client runs discovery, registration, PKCE, the token
 * exchange, refresh and step-up through `provider`; this adds the person's part: the URL on stderr (and in a
 * browser on a desktop), the loopback receiver, its wait.
 */
export class SignIn implements PendingSignIn {
  readonly provider: CliOAuthProvider;
  readonly #server: URL;
  readonly #options: SignInOptions;
  readonly #store: CredentialStore;
  #receiver: LoopbackReceiver | undefined;
  /** The redirect URI of the last receiver: the token exchange sends it after the receiver has closed. */
  #redirectUrl: string | undefined;
  #starting: Promise<void> | undefined;
  #redirected = false;
  #signIns = 0;

  constructor(server: URL, options: SignInOptions) {
    this.#server = server;
    this.#options = options;
    this.#store = options.store ?? new CredentialStore();
    this.provider = new CliOAuthProvider({
      store: this.#store,
      server,
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.clientMetadataUrl !== undefined ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
      redirectUrl: () => this.#redirectUrl,
      onState: (state) => this.#receiver?.expect(state),
      onRedirect: (url) => this.#redirect(url),
    });
  }

  /**
   * `base`, but a 401 or a 403 `insufficient_scope` from the server starts the loopback receiver before the official
   * client reads the answer, so the redirect URI is known when it registers and builds the authorization URL.
   */
  fetch(base: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await base(url, init);
      if (String(url) === this.#server.href && asksForSignIn(response)) {
        this.provider.wants(extractWWWAuthenticateParams(response).scope);
        await this.#listen();
      }
      return response;
    };
  }

  pending(): boolean {
    return this.#redirected;
  }

  async complete(finish: (query: URLSearchParams) => Promise<void>): Promise<void> {
    const receiver = this.#receiver;
    if (!this.#redirected || receiver === undefined) throw new SignInFailed("no sign-in is under way");
    this.#redirected = false;
    const query = await receiver.wait(this.#options.timeoutMs);
    this.#receiver = undefined;
    try {
      await finish(query);
    } catch (error) {
      throw new SignInFailed(`the sign-in did not complete: ${describeFailure(error)}`);
    }
    this.#say(`signed in to ${this.#server.href}\n`);
  }

  async close(): Promise<void> {
    await this.#starting?.catch(() => {});
    await this.#receiver?.close();
    this.#receiver = undefined;
  }

  async #listen(): Promise<void> {
    if (this.#receiver !== undefined) return;
    this.#starting ??= (async () => {
      const preferred = this.#options.callbackPort ?? registeredPort(this.#store.read(this.#server).client);
      try {
        this.#receiver = await startLoopbackReceiver(preferred ?? 0);
      } catch (error) {
        // A registered port taken by something else: a free one, and the provider registers again for it.
        if (this.#options.callbackPort !== undefined || preferred === undefined) throw error;
        this.#receiver = await startLoopbackReceiver(0);
      }
      this.#redirectUrl = this.#receiver.redirectUrl;
    })().finally(() => {
      this.#starting = undefined;
    });
    await this.#starting;
  }

  #redirect(url: URL): void {
    if (++this.#signIns > MAX_SIGN_INS) throw new SignInFailed("the server keeps asking for sign-in; giving up");
    this.#redirected = true;
    const opener = this.#options.open ?? defaultOpen(this.#options.noBrowser === true);
    const opened = opener(url.href);
    const minutes = Math.round(this.#options.timeoutMs / 60_000);
    this.#say(
      `${this.#server.href} asks you to sign in. ${opened ? "Opening your browser at" : "Open this URL in a browser on this machine"}:\n\n` +
        `  ${printable(url.href)}\n\n` +
        `waiting for the sign-in to come back to ${this.#receiver?.redirectUrl ?? "127.0.0.1"} (up to ${minutes} min)…\n`,
    );
  }

  #say(text: string): void {
    (this.#options.say ?? ((line: string) => process.stderr.write(line)))(text);
  }
}

function defaultOpen(noBrowser: boolean): (url: string) => boolean {
  return (url) => {
    const opener: Opener | undefined = openerFor(url, { noBrowser });
    if (opener) openBrowser(opener);
    return opener !== undefined;
  };
}

/** A 401, or a 403 whose challenge is `insufficient_scope` (SEP-2350's step-up). */
function asksForSignIn(response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && /insufficient_scope/.test(response.headers.get("www-authenticate") ?? "");
}

/** The port of a registration's loopback redirect URI, to come back to the same one. */
function registeredPort(client: unknown): number | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uris) || typeof uris[0] !== "string") return undefined;
  try {
    const uri = new URL(uris[0]);
    return uri.hostname === "127.0.0.1" && uri.port !== "" ? Number(uri.port) : undefined;
  } catch {
    return undefined;
  }
}

/** What went wrong, in words a person can read; never a token (the SDK's messages carry none, bodies are cut). */
export function describeFailure(error: unknown): string {
  if (error instanceof OAuthError) return printable(`${error.code}: ${error.message}`.slice(0, 300));
  if (error instanceof UnauthorizedError) return "the server did not accept the sign-in";
  return printable((error instanceof Error ? error.message : String(error)).slice(0, 300));
}
