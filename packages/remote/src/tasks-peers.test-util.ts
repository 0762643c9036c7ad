import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { createServer } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { withRawDispatch } from "../../../tests/tool-search/src/raw-dispatch.test-util.js";
import { createRemote } from "./index.js";

// The peers of the tasks tests: the remote (tasks-remote.test-util.mjs, a process of its own), a gateway linked to it
// in either era, and a caller (the official client with the official ext-tasks session) in either era.

export const REMOTE = fileURLToPath(new URL("./tasks-remote.test-util.mjs", import.meta.url));
const ELICITATION = { elicitation: { form: {} } };
export type Mode = "legacy" | { pin: "2026-07-28" };
export const ERAS: [string, Mode][] = [
  ["handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

export const text = (result: unknown) => (result as { content: { text?: string }[] }).content[0]?.text;

export interface Gateway {
  http: HttpServer;
  close(): Promise<void>;
}

/** The gateway's task settings a test may change. */
export interface GatewayTasks {
  ttlMs?: number;
  maxPerCaller?: number;
}

export async function gateway(url: string, era: Mode, settings: GatewayTasks = {}): Promise<Gateway> {
  // Remote tasks that fail are logged by core as warnings: expected here, not news for the test log.
  const tasks = { pollIntervalMs: 50, ...settings };
  const server = createServer({ name: "gateway", version: "1.0.0", tasks }).setLogger(() => undefined);
  server.tool({ name: "alive", description: "Answers", handler: () => "yes" });
  const remote = await createRemote({ url, era, into: server });
  const http = await listen(server, { port: 0, log: null });
  return {
    http,
    close: async () => {
      await http.close();
      await remote.close();
    },
  };
}

export interface Caller {
  client: Client;
  session: TaskEnabledSession;
  asked: unknown[];
  errors: Error[];
}

export async function caller(url: string, mode: Mode): Promise<Caller> {
  const client = new Client(
    { name: "caller", version: "1" },
    { capabilities: ELICITATION, versionNegotiation: { mode } },
  );
  const raw = withRawDispatch(new StreamableHTTPClientTransport(new URL(url)));
  await client.connect(raw.transport);
  // The session answers questions, tied to their task.
  client.removeRequestHandler("elicitation/create");
  const asked: unknown[] = [];
  const errors: Error[] = [];
  const options = {
    endpointId: "caller",
    onError: (error: Error) => void errors.push(error),
    onInputRequest: async (request: { params?: unknown }, context: { scope: string }) => {
      asked.push({ scope: context.scope, params: request.params });
      return { action: "accept", content: { name: "Ada" } } as never;
    },
  };
  const session =
    mode === "legacy"
      ? createTaskSessionFromClient(client, options)
      : createTaskSessionFromClient(client, {
          ...options,
          rawDispatch: raw.dispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "caller", version: "1" },
            clientCapabilities: ELICITATION,
          },
        });
  return { client, session, asked, errors };
}
