import { createServer, LATEST_HANDSHAKE_VERSION, type LogEntry } from "@toolsmith/core";
import { createHttpHandler } from "@toolsmith/transport-http";
import type { Verifier } from "./jwt-verifier.js";

// A Toolsmith server behind a verifier, answered in process (createHttpHandler): what a caller is told.

export interface Told {
  readonly status: number;
  readonly challenge: string | null;
  readonly retryAfter: string | null;
  readonly body: string;
}

/** An HTTP handler for a server whose `whoami` tool returns `ctx.auth`, and the log lines it wrote. */
export function protectedServer(authenticate: Verifier) {
  const logged: LogEntry[] = [];
  const server = createServer({ name: "protected", version: "1", logger: (entry) => logged.push(entry) });
  server.tool({ name: "whoami", description: "The caller", handler: (_args, ctx) => JSON.stringify(ctx.auth) });
  const handle = createHttpHandler(server, {
    authenticate,
    resourceMetadata: { authorizationServers: ["http://127.0.0.1:1"] },
  });
  /** An initialize POST carrying `authorization` (when given): what comes back. */
  const ask = async (authorization?: string): Promise<Told> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (authorization !== undefined) headers.authorization = authorization;
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_HANDSHAKE_VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const response = await handle(
      new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers, body: JSON.stringify(body) }),
    );
    return {
      status: response.status,
      challenge: response.headers.get("www-authenticate"),
      retryAfter: response.headers.get("retry-after"),
      body: await response.text(),
    };
  };
  return { ask, logged, handle };
}

/** The `error` a `WWW-Authenticate: Bearer` challenge names. */
export function errorOf(challenge: string | null): string | undefined {
  return challenge?.match(/error="([^"]*)"/)?.[1];
}
