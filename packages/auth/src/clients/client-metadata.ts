import { isLoopbackHost } from "./addresses.js";
import type { TokenEndpointAuthMethod } from "./client.js";

// Client metadata (RFC 7591 §2) as both ways of knowing a client state it: checked field by field, each bounded, and
// kept as given (redirect URIs are matched exactly later, so they are never rewritten). Unknown fields are ignored.

/** The metadata of a client, checked: what a registration answers with and what is kept. */
export interface ClientMetadata {
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: TokenEndpointAuthMethod;
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly tos_uri?: string;
  readonly policy_uri?: string;
  readonly scope?: string;
  readonly contacts?: readonly string[];
  readonly software_id?: string;
  readonly software_version?: string;
  readonly application_type?: "web" | "native";
}

/** A refusal in RFC 7591's terms (§3.2.2), its description safe to show. */
export interface MetadataError {
  readonly error: "invalid_redirect_uri" | "invalid_client_metadata";
  readonly description: string;
}

export type MetadataCheck =
  | { readonly metadata: ClientMetadata; readonly error?: undefined }
  | { readonly metadata?: undefined; readonly error: MetadataError };

const MAX_URI = 2000;
const MAX_TEXT = 200;
const MAX_REDIRECT_URIS = 20;
const MAX_CONTACTS = 10;
const MAX_SCOPE = 1000;
// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), joined by single spaces.
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
// Schemes a browser handles itself, or that run code: never a native app's private-use redirect (RFC 8252 §7.1).
const NOT_PRIVATE_USE = new Set([
  "about",
  "blob",
  "chrome",
  "data",
  "file",
  "filesystem",
  "ftp",
  "javascript",
  "mailto",
  "sms",
  "tel",
  "view-source",
  "vbscript",
  "ws",
  "wss",
]);
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);

// Node 20 before 20.18 has no URL.parse.
function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

class Refused extends Error {
  constructor(readonly refusal: MetadataError) {
    super(refusal.description);
  }
}

const refuse = (description: string, error: MetadataError["error"] = "invalid_client_metadata"): never => {
  throw new Refused({ error, description });
};

function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function text(value: unknown, field: string, max = MAX_TEXT): string | undefined {
  if (value === undefined) return undefined;
  // Control characters would reach a consent page and logs: refused, not stripped.
  if (typeof value !== "string" || value.length === 0 || value.length > max || hasControl(value)) {
    return refuse(`${field} must be a string of 1 to ${max} printable characters`);
  }
  return value;
}

function webUri(value: unknown, field: string, development: boolean): string | undefined {
  const uri = text(value, field, MAX_URI);
  if (uri === undefined) return undefined;
  const url = parseUrl(uri);
  const allowed = url?.protocol === "https:" || (url?.protocol === "http:" && development);
  if (url === null || !allowed || url.username !== "" || url.password !== "") {
    return refuse(`${field} must be an https URL without credentials`);
  }
  return uri;
}

/** Why `uri` may not be a redirect URI, or undefined when it may: https, loopback http, or a private-use scheme. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_URI) {
    return `each redirect URI must be a string of 1 to ${MAX_URI} characters`;
  }
  const url = parseUrl(uri);
  if (url === null) return "a redirect URI is not an absolute URL";
  if (uri.includes("#")) return "a redirect URI must not have a fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI must not carry credentials";
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return url.hostname === "" ? "an https redirect URI must name a host" : undefined;
  if (scheme === "http") {
    return isLoopbackHost(url.hostname)
      ? undefined
      : "an http redirect URI must be a loopback one (127.0.0.1, [::1] or localhost; RFC 8252)";
  }
  if (!SCHEME.test(scheme) || NOT_PRIVATE_USE.has(scheme)) {
    return `the scheme "${scheme}" is not allowed in a redirect URI`;
  }
  return undefined;
}

function stringList(value: unknown, field: string, max: number, maxItem: number): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > max) return refuse(`${field} must be an array of at most ${max} strings`);
  return value.map((item) => text(item, field, maxItem) as string);
}

function authMethod(value: unknown, source: "registration" | "metadata-document"): TokenEndpointAuthMethod {
  if (value === undefined) return source === "registration" ? "client_secret_basic" : "none";
  if (source === "metadata-document") {
    if (value === "none") return "none";
    return refuse(
      value === "private_key_jwt"
        ? "token_endpoint_auth_method private_key_jwt is not supported by this server; use none"
        : "a client metadata document's token_endpoint_auth_method must be none",
    );
  }
  if (value === "none" || value === "client_secret_basic" || value === "client_secret_post") return value;
  return refuse("token_endpoint_auth_method must be none, client_secret_basic or client_secret_post");
}

function check(input: unknown, source: "registration" | "metadata-document", development: boolean): ClientMetadata {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return refuse("the metadata must be a JSON object");
  const body = input as Record<string, unknown>;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return refuse(`redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs`, "invalid_redirect_uri");
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) refuse(problem, "invalid_redirect_uri");
  }
  const grantTypes = stringList(body.grant_types, "grant_types", 4, 40) ?? ["authorization_code"];
  if (!grantTypes.every((grant) => GRANT_TYPES.has(grant)) || !grantTypes.includes("authorization_code")) {
    refuse("grant_types must include authorization_code, and may add refresh_token only");
  }
  const responseTypes = stringList(body.response_types, "response_types", 1, 40) ?? ["code"];
  if (responseTypes.length !== 1 || responseTypes[0] !== "code") refuse('response_types must be ["code"]');
  if ("client_secret" in body && source === "metadata-document") {
    refuse("a client metadata document must not hold a client_secret");
  }
  const scope = text(body.scope, "scope", MAX_SCOPE);
  if (scope !== undefined && !SCOPE.test(scope)) refuse("scope must be scope tokens separated by single spaces");
  const applicationType = body.application_type;
  if (applicationType !== undefined && applicationType !== "web" && applicationType !== "native") {
    refuse("application_type must be web or native");
  }
  const optional = {
    client_name: text(body.client_name, "client_name"),
    client_uri: webUri(body.client_uri, "client_uri", development),
    logo_uri: webUri(body.logo_uri, "logo_uri", development),
    tos_uri: webUri(body.tos_uri, "tos_uri", development),
    policy_uri: webUri(body.policy_uri, "policy_uri", development),
    scope,
    contacts: stringList(body.contacts, "contacts", MAX_CONTACTS, 320),
    software_id: text(body.software_id, "software_id"),
    software_version: text(body.software_version, "software_version"),
    application_type: applicationType as "web" | "native" | undefined,
  };
  return {
    redirect_uris: [...new Set(uris as string[])],
    token_endpoint_auth_method: authMethod(body.token_endpoint_auth_method, source),
    grant_types: [...new Set(grantTypes)],
    response_types: responseTypes,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** Check client metadata from a registration request or a metadata document. */
export function checkClientMetadata(
  input: unknown,
  source: "registration" | "metadata-document",
  development: boolean,
): MetadataCheck {
  try {
    return { metadata: check(input, source, development) };
  } catch (error) {
    if (error instanceof Refused) return { error: error.refusal };
    throw error;
  }
}
