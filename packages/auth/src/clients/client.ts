// What the authorization server knows of a client, whichever way it came: a metadata document or a registration.

/** The ways a client may prove itself at the token endpoint: `token_endpoint_auth_methods_supported` (RFC 8414). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

/** How a client proves itself at the token endpoint. */
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** An OAuth client the authorization server accepts. */
export interface OAuthClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  readonly grantTypes: readonly string[];
  readonly scope?: string;
  readonly source: "metadata-document" | "registration";
}

/** The fields of checked client metadata (`ClientMetadata`, RFC 7591 §2) a client is made of. */
interface ClientFields {
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: TokenEndpointAuthMethod;
  readonly grant_types: readonly string[];
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly scope?: string;
}

/** The client checked `metadata` describes, under `clientId`, as it came from `source`. */
export function clientOf(clientId: string, metadata: ClientFields, source: OAuthClient["source"]): OAuthClient {
  return {
    clientId,
    redirectUris: metadata.redirect_uris,
    ...(metadata.client_name === undefined ? {} : { clientName: metadata.client_name }),
    ...(metadata.client_uri === undefined ? {} : { clientUri: metadata.client_uri }),
    ...(metadata.logo_uri === undefined ? {} : { logoUri: metadata.logo_uri }),
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
    grantTypes: metadata.grant_types,
    ...(metadata.scope === undefined ? {} : { scope: metadata.scope }),
    source,
  };
}

/** The answer to a client id: the client, or why there is none (a sentence the authorize step can show). */
export type ClientLookup =
  | { readonly client: OAuthClient; readonly reason?: undefined }
  | { readonly client?: undefined; readonly reason: string };

/** The clients an authorization server accepts, and how they register and authenticate. */
export interface ClientRegistry {
  /** Whether URL client ids (client ID metadata documents) are accepted: `client_id_metadata_document_supported`. */
  readonly metadataDocuments: boolean;
  /** Whether POST /register is open (RFC 7591): advertise `registration_endpoint` only when it is. */
  readonly dynamicRegistration: boolean;
  /** The client a client_id names (a registered id, or an https URL whose metadata document is fetched): undefined when none/invalid. */
  resolve(clientId: string): Promise<OAuthClient | undefined>;
  /** As `resolve`, with the reason when there is no client (never the fetched document's content). */
  lookup(clientId: string): Promise<ClientLookup>;
  /** POST /register (RFC 7591): the whole HTTP answer. `caller` is the caller key (address) registrations are counted by. */
  register(request: Request, caller: string): Promise<Response>;
  /** Client authentication at the token endpoint (none / secret basic / post): whether it passed. */
  authenticate(client: OAuthClient, request: Request, form: URLSearchParams): Promise<boolean>;
}
