import { type IdpLink, jsonObject } from "./idp-link.js";

/**
 * Where an issuer's metadata may be, in the order asked: OpenID Connect Discovery, then RFC 8414. An issuer with a
 * path (`https://idp.example/tenant`) is asked at the well-known name inserted before the path (RFC 8414 §3.1) and,
 * for OpenID, after it as well (OpenID Connect Discovery §4).
 */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const at = (well: string) => new URL(`${url.origin}${well}`);
  if (path === "") return [at("/.well-known/openid-configuration"), at("/.well-known/oauth-authorization-server")];
  return [
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
    at(`/.well-known/oauth-authorization-server${path}`),
  ];
}

function httpUrl(value: unknown): URL | undefined {
  if (typeof value !== "string" || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
}

/**
 * The issuer's metadata document (the first of `metadataUrls` that has one); its `issuer` must be the one asked
 * for, exactly (RFC 8414 §3.3). No document, or a wrong one: `AuthUnavailable` (a provider answering garbage).
 */
export async function discover(issuer: string, idp: IdpLink): Promise<Record<string, unknown>> {
  for (const url of metadataUrls(issuer)) {
    const answer = await idp.fetch(url, { headers: { accept: "application/json" } }, "its metadata", [200, 404]);
    if (answer.status === 404) continue;
    let metadata: Record<string, unknown>;
    try {
      metadata = jsonObject(answer.body);
      if (metadata.issuer !== issuer) throw new Error(`its metadata names another issuer`);
    } catch (error) {
      throw idp.failed("its metadata", error);
    }
    return metadata;
  }
  throw idp.failed("its metadata", new Error(`no metadata document at ${metadataUrls(issuer).join(", ")}`));
}

/** The `jwks_uri` an issuer's metadata names. */
export async function discoverJwksUri(issuer: string, idp: IdpLink): Promise<URL> {
  const metadata = await discover(issuer, idp);
  const jwksUri = httpUrl(metadata.jwks_uri);
  if (jwksUri === undefined) throw idp.failed("its key set", new Error("its metadata names no http(s) jwks_uri"));
  return jwksUri;
}
