import { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";

// Shared by the HTTP tests that call a handler directly: web-standard requests of both eras.

export const URL_ = "http://127.0.0.1:3000/mcp";

export const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { elicitation: {} },
};

/** The headers of a handshake-era POST. */
export const H = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The headers of a 2026-07-28 POST. */
export function headers2026(method: string, name?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...H,
    "mcp-protocol-version": LATEST_STATELESS_VERSION,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
    ...extra,
  };
}

/** A POST of `body`: a string as it is (JSON or not), anything else as JSON. */
export function post(body: unknown, headers: Record<string, string>): Request {
  return new Request(URL_, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

/** A GET of the endpoint with `headers`. */
export function get(headers: Record<string, string>): Request {
  return new Request(URL_, { method: "GET", headers });
}

/** A 2026-07-28 `tools/call` of `name` with `params` besides its name (arguments, inputResponses, requestState). */
export function call2026(
  id: number,
  name: string,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
) {
  return post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, ...params, _meta: META } },
    headers2026("tools/call", name, extra),
  );
}

/** A handshake-era `initialize` body. */
export function initialize(id = 1, version: string = LATEST_HANDSHAKE_VERSION, capabilities = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities, clientInfo: { name: "c", version: "1" } },
  };
}

/** A session of `version` opened and initialized on `handle` (a client that can answer elicitation); its id. */
export async function openSession(
  handle: (request: Request) => Promise<Response>,
  version: string = LATEST_HANDSHAKE_VERSION,
): Promise<string> {
  const response = await handle(post(initialize(1, version, { elicitation: {} }), H));
  const session = response.headers.get("mcp-session-id") as string;
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...H, "mcp-session-id": session }));
  return session;
}

/** The JSON-RPC messages of an SSE reply, in order (priming events, whose data is empty, left out). */
export async function events(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((event) =>
      event
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6),
    )
    .filter((data): data is string => data !== undefined && data !== "")
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** The error message of a JSON-RPC error reply. */
export async function errorMessage(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

/** The JSON-RPC message of a reply, whether sent as JSON or as an SSE stream. */
export async function replyOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return JSON.parse(text);
  const data = text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  return data.find((message) => "result" in message || "error" in message) ?? {};
}
