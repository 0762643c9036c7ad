// The client registry's interface, as clients/ will export it (i26.md); proxy/ consumes only this.

export interface OAuthClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly tokenEndpointAuthMethod: "none" | "client_secret_basic" | "client_secret_post";
  readonly grantTypes: readonly string[];
  readonly scope?: string;
  readonly source: "metadata-document" | "registration";
}

export interface ClientRegistry {
  readonly metadataDocuments: boolean;
  readonly dynamicRegistration: boolean;
  resolve(clientId: string): Promise<OAuthClient | undefined>;
  register(request: Request, caller: string): Promise<Response>;
  authenticate(client: OAuthClient, request: Request, form: URLSearchParams): Promise<boolean>;
}
