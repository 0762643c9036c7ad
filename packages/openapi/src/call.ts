import type { CallToolResult, RequestContext } from "@toolsmith/core";
import { readBounded } from "@toolsmith/core/internal";
import { isJson, writeBody } from "./body.js";
import type { Operation } from "./operations.js";
import { applySecurity, type Carrier, type CredentialSource, redact, type Scheme } from "./security.js";
import { cookiePairs, headerValue, pathValue, queryPairs } from "./serialize.js";

// Headers whose values headers(ctx) gives are credentials, blanked out of what the model is shown.
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key"]);

// One tool call as one HTTP request with the global fetch: arguments placed as the operation says, the caller's
// credentials only as configured, the answer read within a bound; a failure is an isError result the model reads.

/** How calls are made. */
export interface CallOptions {
  /** Where the API is: the operation's path is appended to it. */
  readonly baseUrl: string;
  /** Credentials by security scheme name; nothing is sent for a scheme not named here. */
  readonly credentials?: Readonly<Record<string, CredentialSource>>;
  /** The schemes `credentials` names, as the document declares them. */
  readonly schemes: ReadonlyMap<string, Scheme>;
  /**
   * Headers for each request, from the caller's context (a token from `ctx.auth`, say). Nothing of the caller's is
   * forwarded unless this says so.
   */
  readonly headers?: (ctx: RequestContext) => Record<string, string> | Promise<Record<string, string>>;
  /** How long a request may take, in milliseconds (default 30,000); a cancelled call stops it too. */
  readonly timeoutMs?: number;
  /** The most bytes of an answer read (default 4 MiB); a larger answer is an error result. */
  readonly maxResponseBytes?: number;
  /** How many characters of an error answer's body the model is shown (default 2,000). */
  readonly errorBodyChars?: number;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The most characters a request's query may take (its values are the model's: a huge one is refused, not sent). */
const MAX_QUERY = 32 * 1024;

/** The request's URL, or a reason it cannot be made. */
function urlOf(operation: Operation, base: string, args: Record<string, unknown>, query: string[]): URL | string {
  let path = operation.path;
  for (const [key, placement] of operation.placements) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    if (placement.in === "path") {
      const text = pathValue(placement.name, placement.style, placement.explode, value);
      // A dot segment would move the request to another path of the API (URL parsing resolves "..", "%2e%2e"), as
      // would an empty value (`/items/{id}` would be `/items/`).
      if (/^(\.|%2e){0,2}$/i.test(text)) return `path parameter "${key}" may not be "${text}"`;
      path = path.split(`{${placement.name}}`).join(text);
    } else if (placement.in === "query") {
      const pairs = queryPairs(placement.name, placement.style, placement.explode, value);
      if (!Array.isArray(pairs)) return pairs.error;
      query.push(...pairs);
    }
  }
  // A label or matrix value, or an array's items, may still make a segment of dots: refused as one value is.
  if (path.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return `the path ${operation.path} would hold a dot segment`;
  }
  const search = query.join("&");
  if (search.length > MAX_QUERY) return `the query would be ${search.length} characters, over ${MAX_QUERY}`;
  const url = new URL(base + path);
  url.search = search;
  return url;
}

// Headers.set throws on a line break or a character past U+00FF, its message quoting the value: false then.
function setHeader(headers: Headers, name: string, value: string): boolean {
  try {
    headers.set(name, value);
    return true;
  } catch {
    return false;
  }
}

/** Call the operation with validated arguments. */
export async function callOperation(
  operation: Operation,
  options: CallOptions,
  args: Record<string, unknown>,
  ctx: RequestContext,
): Promise<CallToolResult | Record<string, unknown>> {
  const headers = new Headers();
  const carrier: Carrier = { headers, cookies: [], query: [], secrets: [] };
  for (const [key, placement] of operation.placements) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    if (placement.in === "header") {
      const text = headerValue(placement.explode, value);
      if (text === undefined || !setHeader(headers, placement.name, text)) {
        return failure(
          `header parameter "${key}" cannot be sent: a header holds no line break or character past U+00FF`,
        );
      }
    } else if (placement.in === "cookie")
      carrier.cookies.push(...cookiePairs(placement.name, placement.explode, value));
  }
  let body: string | FormData | undefined;
  if (operation.body && args[operation.body.key] !== undefined) {
    const written = writeBody(operation.body, args[operation.body.key]);
    if (typeof written === "string") return failure(written);
    body = written.body;
    if (written.type !== undefined) headers.set("content-type", written.type);
  }
  const refused = await applySecurity(operation.security, options.schemes, options.credentials ?? {}, ctx, carrier);
  if (refused !== undefined) return failure(refused);
  const url = urlOf(operation, options.baseUrl, args, carrier.query);
  if (typeof url === "string") return failure(url);
  if (carrier.cookies.length > 0) headers.set("cookie", carrier.cookies.join("; "));
  headers.set("accept", "application/json, text/*;q=0.9, */*;q=0.5");
  for (const [name, value] of Object.entries((await options.headers?.(ctx)) ?? {})) {
    // Its value is a credential, most likely: not said, here or in what fetch would have thrown.
    if (!setHeader(headers, name, value)) return failure(`the header "${name}" from headers(ctx) cannot be sent`);
    // The whole value, and what follows its scheme word (`Bearer …`), never the word itself.
    if (SECRET_HEADERS.has(name.toLowerCase())) carrier.secrets.push(value, value.replace(/^[A-Za-z]+\s+/, ""));
  }
  const shown = (text: string) => redact(text, carrier.secrets);
  const where = `${operation.method.toUpperCase()} ${url.origin}${url.pathname}`;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeoutMs ?? 30_000)]);
  let response: Response;
  let answer: string | undefined;
  try {
    response = await fetch(url, { method: operation.method.toUpperCase(), headers, body, signal, redirect: "manual" });
    const bytes = await readBounded(response.body, options.maxResponseBytes ?? 4 * 1024 * 1024);
    answer = bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  } catch (error) {
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    return failure(shown(`${where} failed: ${reason}`));
  }
  if (answer === undefined) {
    return failure(
      `${where} answered ${response.status} with a body over ${options.maxResponseBytes ?? 4 * 1024 * 1024} bytes, which was not read`,
    );
  }
  answer = shown(answer);
  if (response.status < 200 || response.status > 299) {
    const limit = options.errorBodyChars ?? 2000;
    const slice = answer.length > limit ? `${answer.slice(0, limit)}… (${answer.length} characters in all)` : answer;
    return failure(`${shown(where)} answered ${response.status} ${response.statusText}${slice ? `:\n${slice}` : ""}`);
  }
  const type = response.headers.get("content-type") ?? "";
  if (operation.output && isJson(type) && answer !== "") {
    let value: unknown;
    try {
      value = JSON.parse(answer);
    } catch {
      return failure(`${where} answered ${response.status} with JSON that does not parse`);
    }
    return operation.wrapped ? { result: value } : (value as Record<string, unknown>);
  }
  return { content: [{ type: "text", text: answer === "" ? `${response.status} ${response.statusText}` : answer }] };
}
