import type { CallToolResult, RequestContext } from "@toolsmith/core";
import { readBounded } from "@toolsmith/core/internal";
import { isJson, type Operation } from "./operations.js";

// One tool call as one HTTP request with the global fetch: arguments placed as the operation says, the caller's
// credentials only as configured, the answer read within a bound; a failure is an isError result the model reads.

/** How calls are made. */
export interface CallOptions {
  /** Where the API is: the operation's path is appended to it. */
  readonly baseUrl: string;
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

/** The request's URL, or a reason it cannot be made. */
function urlOf(operation: Operation, base: string, args: Record<string, unknown>): URL | string {
  let path = operation.path;
  const query = new URLSearchParams();
  for (const [key, placement] of operation.placements) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    if (placement.in === "path") {
      const text = String(value);
      // A dot segment would move the request to another path of the API (URL parsing resolves "..", "%2e%2e"), as
      // would an empty value (`/items/{id}` would be `/items/`).
      if (/^(\.|%2e){0,2}$/i.test(text)) return `path parameter "${key}" may not be "${text}"`;
      path = path.split(`{${placement.name}}`).join(encodeURIComponent(text));
    } else if (placement.in === "query") {
      if (Array.isArray(value) && placement.explode) for (const item of value) query.append(placement.name, text(item));
      else query.append(placement.name, Array.isArray(value) ? value.map(text).join(",") : text(value));
    }
  }
  const url = new URL(base.replace(/\/+$/, "") + path);
  url.search = query.toString();
  return url;
}

function text(value: unknown): string {
  return typeof value === "object" ? JSON.stringify(value) : String(value);
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
  const url = urlOf(operation, options.baseUrl, args);
  if (typeof url === "string") return failure(url);
  const headers = new Headers();
  const cookies: string[] = [];
  let body: string | undefined;
  for (const [key, placement] of operation.placements) {
    const value = args[key];
    if (value === undefined) continue;
    if (placement.in === "header" && !setHeader(headers, placement.name, text(value))) {
      return failure(`header parameter "${key}" cannot be sent: a header holds no line break or character past U+00FF`);
    } else if (placement.in === "cookie") cookies.push(`${placement.name}=${encodeURIComponent(text(value))}`);
    else if (placement.in === "body") {
      const json = operation.bodyType !== undefined && isJson(operation.bodyType);
      body = json ? JSON.stringify(value) : text(value);
      headers.set("content-type", operation.bodyType ?? "application/json");
    }
  }
  if (cookies.length > 0) headers.set("cookie", cookies.join("; "));
  headers.set("accept", "application/json, text/*;q=0.9, */*;q=0.5");
  for (const [name, value] of Object.entries((await options.headers?.(ctx)) ?? {})) {
    // Its value is a credential, most likely: not said, here or in what fetch would have thrown.
    if (!setHeader(headers, name, value)) return failure(`the header "${name}" from headers(ctx) cannot be sent`);
  }
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
    return failure(`${where} failed: ${reason}`);
  }
  if (answer === undefined) {
    return failure(
      `${where} answered ${response.status} with a body over ${options.maxResponseBytes ?? 4 * 1024 * 1024} bytes, which was not read`,
    );
  }
  if (response.status < 200 || response.status > 299) {
    const limit = options.errorBodyChars ?? 2000;
    const slice = answer.length > limit ? `${answer.slice(0, limit)}… (${answer.length} characters in all)` : answer;
    return failure(`${where} answered ${response.status} ${response.statusText}${slice ? `:\n${slice}` : ""}`);
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
