import { OpenApiError } from "./errors.js";

// Where an operation's requests go: `baseUrl` when given, else its own servers, its path's, or the document's first,
// with each `{variable}` its configured value or default (one outside its enum refused) and a relative URL read
// against the document's own URL. Said at start, never on a call.

/** A server as the document gives it. */
export interface ServerObject {
  readonly url: string;
  readonly description?: string;
  readonly variables?: Readonly<Record<string, { readonly default?: unknown; readonly enum?: readonly unknown[] }>>;
}

/** How the API's URL is found. */
export interface ServerOptions {
  /** Where the API is: taken over every server the document names. */
  readonly baseUrl?: string;
  /** Values of the servers' `{variables}`, by name (default: each variable's `default`). */
  readonly serverVariables?: Readonly<Record<string, string>>;
  /** Where the document was read from: relative server URLs (and `$ref`s, when allowed) are read against it. */
  readonly documentUrl?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The servers of a list that are objects with a URL. */
export function serverObjects(list: unknown): ServerObject[] {
  return Array.isArray(list)
    ? list.filter((server): server is ServerObject => isObject(server) && typeof server.url === "string")
    : [];
}

function substitute(server: ServerObject, values: Readonly<Record<string, string>>): string {
  return server.url.replace(/\{([^{}]*)\}/g, (_match, name: string) => {
    const variable = server.variables?.[name];
    if (!isObject(variable))
      throw new OpenApiError(`the server ${server.url} names the variable "${name}" it does not define`);
    const value = Object.hasOwn(values, name) ? values[name] : variable.default;
    if (typeof value !== "string")
      throw new OpenApiError(`the server variable "${name}" has no value: give one in serverVariables`);
    if (Array.isArray(variable.enum) && variable.enum.length > 0 && !variable.enum.includes(value)) {
      const allowed = variable.enum.map((item) => JSON.stringify(item)).join(", ");
      throw new OpenApiError(`the server variable "${name}" is ${JSON.stringify(value)}, not one of ${allowed}`);
    }
    return value;
  });
}

/** The base URL of an operation's requests; an OpenApiError saying why there is none. */
export function baseUrlOf(servers: readonly ServerObject[], options: ServerOptions): string {
  let base = options.baseUrl;
  if (base === undefined) {
    const server = servers[0];
    if (server === undefined) throw new OpenApiError("no baseUrl: give one (the document names no server)");
    const url = substitute(server, options.serverVariables ?? {});
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && options.documentUrl === undefined) {
      throw new OpenApiError(
        `no baseUrl: give one, or the documentUrl the server ${JSON.stringify(url)} is relative to`,
      );
    }
    try {
      base = new URL(url, options.documentUrl).href;
    } catch {
      throw new OpenApiError(`the server ${JSON.stringify(url)} is not a URL`);
    }
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new OpenApiError("the baseUrl is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OpenApiError(`the baseUrl is a ${url.protocol} URL, not an http(s) one`);
  }
  // fetch refuses a URL with credentials, quoting it whole in its error: refused here, without them.
  if (url.username !== "" || url.password !== "") {
    throw new OpenApiError(
      `the baseUrl ${url.host} holds credentials (user:password@), which fetch refuses: give them in headers`,
    );
  }
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}
