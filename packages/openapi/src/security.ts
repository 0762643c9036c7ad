import type { RequestContext } from "@toolsmith/core";
import { OpenApiError } from "./errors.js";
import type { SecurityRequirement } from "./operations.js";

// The document's security schemes, each met with the credential configured for it: an API key (header, query or
// cookie), HTTP bearer or basic, OAuth 2 or OpenID Connect (its access token, as a bearer). A request carries the
// credentials of its operation's first security requirement whose every scheme has one; the caller's own token
// only where a scheme is configured with `callerToken` (or a function of the context that returns it).

/** A credential: a key or token, or a user and password for HTTP basic. */
export type Credential = string | { readonly username: string; readonly password: string };

/** A scheme's credential, fixed or per call (undefined: none for this caller). */
export type CredentialSource =
  | Credential
  | ((ctx: RequestContext) => Credential | undefined | Promise<Credential | undefined>);

/** The caller's own token (`ctx.auth.token`, as the HTTP transport's authenticator gave it), for a scheme that takes it. */
export const callerToken = (ctx: RequestContext): string | undefined =>
  typeof ctx.auth?.token === "string" ? ctx.auth.token : undefined;

export type Scheme =
  | { readonly kind: "apiKey"; readonly in: "header" | "query" | "cookie"; readonly name: string }
  | { readonly kind: "bearer" }
  | { readonly kind: "basic" };

/** Where a request's credentials go as it is built. */
export interface Carrier {
  readonly headers: Headers;
  readonly cookies: string[];
  readonly query: string[];
  /** Every secret sent, to be blanked out of any text the model is shown. */
  readonly secrets: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The configured schemes, checked against the document's: a name it lacks or a type not sent is refused. */
export function readSchemes(
  components: unknown,
  credentials: Readonly<Record<string, CredentialSource>>,
): ReadonlyMap<string, Scheme> {
  const declared = isObject(components) && isObject(components.securitySchemes) ? components.securitySchemes : {};
  const schemes = new Map<string, Scheme>();
  for (const [name, credential] of Object.entries(credentials)) {
    const scheme = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!isObject(scheme)) {
      throw new OpenApiError(`credentials name the security scheme "${name}", which the document does not declare`);
    }
    const read = schemeOf(scheme);
    if (typeof read === "string") throw new OpenApiError(`the security scheme "${name}" ${read}`);
    if (typeof credential !== "function" && (read.kind === "basic") !== (typeof credential === "object")) {
      const wanted = read.kind === "basic" ? "{ username, password }" : "a string";
      throw new OpenApiError(`the credential for the security scheme "${name}" must be ${wanted}`);
    }
    schemes.set(name, read);
  }
  return schemes;
}

function schemeOf(scheme: Record<string, unknown>): Scheme | string {
  if (scheme.type === "apiKey") {
    if (typeof scheme.name !== "string" || !["header", "query", "cookie"].includes(scheme.in as string)) {
      return "is an apiKey without a name or a place (header, query or cookie)";
    }
    return { kind: "apiKey", in: scheme.in as "header", name: scheme.name };
  }
  if (scheme.type === "http") {
    const kind = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
    if (kind === "bearer" || kind === "basic") return { kind };
    return `is HTTP ${JSON.stringify(scheme.scheme)}; only bearer and basic are sent`;
  }
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return { kind: "bearer" };
  return `is of type ${JSON.stringify(scheme.type)}, which is not sent`;
}

const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Add the credentials of the first requirement met; a reason (naming the scheme, never the value) when a configured
 * one cannot be sent. None met: the request goes without, and the API answers as it does.
 */
export async function applySecurity(
  requirements: readonly SecurityRequirement[] | undefined,
  schemes: ReadonlyMap<string, Scheme>,
  credentials: Readonly<Record<string, CredentialSource>>,
  ctx: RequestContext,
  carrier: Carrier,
): Promise<string | undefined> {
  if (requirements === undefined || schemes.size === 0) return undefined;
  const known = new Map<string, Credential | undefined>();
  // An empty requirement (`{}`: none needed) is met by anything, so it is tried last: credentials go when there are any.
  const ordered = [...requirements].sort(
    (a, b) => Number(Object.keys(a).length === 0) - Number(Object.keys(b).length === 0),
  );
  for (const requirement of ordered) {
    const names = Object.keys(requirement);
    let met = true;
    for (const name of names) {
      if (!known.has(name)) {
        const source = schemes.has(name) ? credentials[name] : undefined;
        known.set(name, typeof source === "function" ? await source(ctx) : source);
      }
      if (known.get(name) === undefined) met = false;
    }
    if (!met) continue;
    for (const name of names) {
      const failed = apply(schemes.get(name) as Scheme, known.get(name) as Credential, carrier);
      if (failed) return `the credential for the security scheme "${name}" cannot be sent: ${failed}`;
    }
    return undefined;
  }
  return undefined;
}

function apply(scheme: Scheme, credential: Credential, carrier: Carrier): string | undefined {
  if (scheme.kind === "basic") {
    if (typeof credential !== "object") return "HTTP basic takes { username, password }";
    if (credential.username.includes(":")) return "a basic user name holds no colon";
    const token = Buffer.from(`${credential.username}:${credential.password}`, "utf8").toString("base64");
    carrier.secrets.push(credential.password, token);
    carrier.headers.set("authorization", `Basic ${token}`);
    return undefined;
  }
  if (typeof credential !== "string") return "it takes a string";
  carrier.secrets.push(credential, encodeURIComponent(credential));
  if (scheme.kind === "bearer") {
    if (!HEADER_VALUE.test(credential)) return "a header holds no line break or character past U+00FF";
    carrier.headers.set("authorization", `Bearer ${credential}`);
  } else if (scheme.in === "header") {
    if (!HEADER_VALUE.test(credential)) return "a header holds no line break or character past U+00FF";
    carrier.headers.set(scheme.name, credential);
  } else if (scheme.in === "cookie") {
    if (!COOKIE_VALUE.test(credential)) return "a cookie holds no space, quote, comma, semicolon or backslash";
    carrier.cookies.push(`${scheme.name}=${credential}`);
  } else carrier.query.push(`${encodeURIComponent(scheme.name)}=${encodeURIComponent(credential)}`);
  return undefined;
}

/** `text` with every secret of at least four characters blanked out. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}
