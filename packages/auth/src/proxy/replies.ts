// How the proxy answers: OAuth errors as JSON (RFC 6749 section 5.2), redirects carrying `iss` (RFC 9207), and an
// HTML page for what cannot be redirected (an unknown client, an untrusted redirect URI: never an open redirect).

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/** JSON with `Cache-Control: no-store` (every answer holding a token or about one). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

/** An OAuth error answer: `{ error, error_description }`. */
export function oauthError(
  status: 400 | 401 | 429 | 503,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return json({ error, error_description: description }, status, headers);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML, in content and in quoted attributes alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** Headers of every page: no framing (clickjacking of the consent page), no scripts, nothing cached. */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  ...NO_STORE,
};

/** A whole HTML page around `body` (already escaped). */
export function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem}code{word-break:break-all}</style>
</head><body>
${body}
</body></html>
`;
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/** An error page: what went wrong, for a person (nothing a caller should not see). */
export function errorPage(status: number, message: string): Response {
  return page(status, "Sign-in failed", `<h1>Sign-in failed</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** A 303 to `location`. */
export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...NO_STORE, ...headers } });
}

/** `redirectUri` with `params` added to its query (its own query kept), for an authorization response. */
export function withParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
