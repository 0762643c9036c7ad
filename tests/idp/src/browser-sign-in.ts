import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { type SignInOptions, signInWithChromium } from "./chromium.js";

// Where the authorization server sends the browser back: nothing listens there, the browser is stopped on its way.
const REDIRECT = "http://127.0.0.1:8976/callback";

/**
 * The official client's OAuthClientProvider as an application keeps it, in memory: registration, tokens, the PKCE
 * verifier and discovery state; each authorization URL it is asked to open is kept for a person to visit.
 */
export class BrowserSignIn implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  #verifier = "";
  #discovery: OAuthDiscoveryState | undefined;

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Toolsmith sign-in tests",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  /** The authorization URL the client last asked to open. */
  get lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (url === undefined) throw new Error("the client asked for no authorization");
    return url;
  }

  /**
   * A person completes the authorization the client last asked for, in headless Chromium; the transport that asked
   * redeems the code (`finishAuth`). Returns the callback's parameters.
   */
  async completeIn(transport: StreamableHTTPClientTransport, options: SignInOptions = {}): Promise<URLSearchParams> {
    const landed = new URL(await signInWithChromium(this.lastAuthorizationUrl.href, options));
    await transport.finishAuth(landed.searchParams);
    return landed.searchParams;
  }
}
