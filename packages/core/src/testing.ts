import type { Era } from "./context.js";
import { McpError } from "./errors.js";
import { isPlainObject, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "./json-rpc.js";
import { isStatelessVersion, MetaKey, type ProtocolVersion } from "./protocol.js";
import { type Servable, toServer } from "./server.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "./types.js";

/** One message that crossed the in-memory wire, as the JSON text it was. */
export interface WireRecord {
  direction: "in" | "out";
  line: string;
  message: JsonRpcMessage;
}

export interface TestClientOptions {
  /** The revision to speak: a handshake one opens with initialize, 2026-07-28 with server/discover (default). */
  protocolVersion?: ProtocolVersion;
  clientInfo?: Implementation;
  capabilities?: Record<string, unknown>;
}

/**
 * A client that talks to a server in memory, through the same JSON text a transport would carry.
 * @example
 * const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
 * const result = await client.callTool("add", { a: 1, b: 2 });
 */
export interface TestClient {
  readonly protocolVersion: ProtocolVersion;
  readonly era: Era;
  /** The `initialize` or `server/discover` result. */
  readonly serverResult: Record<string, unknown>;
  /** Every line exchanged, in order: "in" is client → server. */
  readonly messages: readonly WireRecord[];
  /** Send a request; resolves to its result, rejects with an McpError for an error reply. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Send raw text exactly as given; resolves to the reply line, if any. */
  send(line: string): Promise<string | undefined>;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  readResource(uri: string): Promise<ReadResourceResult>;
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  /** Abort what is still running on the server side. */
  close(): void;
}

/** Connect an in-memory client to `server` and complete the handshake (or discovery) of the chosen revision. */
export async function createTestClient(servable: Servable, options: TestClientOptions = {}): Promise<TestClient> {
  const server = toServer(servable);
  const protocolVersion = options.protocolVersion ?? "2026-07-28";
  const era: Era = isStatelessVersion(protocolVersion) ? "stateless" : "handshake";
  const clientInfo = options.clientInfo ?? { name: "toolsmith-test-client", version: "0.0.0" };
  const capabilities = options.capabilities ?? {};
  const session = server.connect();
  const messages: WireRecord[] = [];
  let nextId = 0;

  async function send(line: string): Promise<string | undefined> {
    messages.push({ direction: "in", line, message: safeParse(line) });
    const reply = await session.handleLine(line);
    if (reply !== undefined) messages.push({ direction: "out", line: reply, message: safeParse(reply) });
    return reply;
  }

  function withMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (era === "handshake") return params;
    const meta = isPlainObject(params?._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        [MetaKey.protocolVersion]: protocolVersion,
        [MetaKey.clientInfo]: clientInfo,
        [MetaKey.clientCapabilities]: capabilities,
        ...meta,
      },
    };
  }

  async function request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id: RequestId = nextId++;
    const full = withMeta(params);
    const reply = await send(
      JSON.stringify(
        full === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: full },
      ),
    );
    if (reply === undefined) throw new Error(`no reply to ${method} (id ${id})`);
    const response = JSON.parse(reply) as JsonRpcResponse;
    if ("error" in response) throw new McpError(response.error.code, response.error.message, response.error.data);
    return response.result;
  }

  async function notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const full = withMeta(params);
    await send(
      JSON.stringify(full === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params: full }),
    );
  }

  let serverResult: Record<string, unknown>;
  if (era === "handshake") {
    serverResult = await request("initialize", { protocolVersion, capabilities, clientInfo });
    await notify("notifications/initialized");
  } else {
    serverResult = await request("server/discover");
  }

  return {
    protocolVersion,
    era,
    serverResult,
    messages,
    request,
    notify,
    send,
    listTools: async () => (await request("tools/list")).tools as Tool[],
    callTool: async (name, args) =>
      (await request(
        "tools/call",
        args === undefined ? { name } : { name, arguments: args },
      )) as unknown as CallToolResult,
    listResources: async () => (await request("resources/list")).resources as Resource[],
    listResourceTemplates: async () =>
      (await request("resources/templates/list")).resourceTemplates as ResourceTemplate[],
    readResource: async (uri) => (await request("resources/read", { uri })) as unknown as ReadResourceResult,
    listPrompts: async () => (await request("prompts/list")).prompts as Prompt[],
    getPrompt: async (name, args) =>
      (await request(
        "prompts/get",
        args === undefined ? { name } : { name, arguments: args },
      )) as unknown as GetPromptResult,
    close: () => session.close(),
  };
}

function safeParse(line: string): JsonRpcMessage {
  try {
    return JSON.parse(line) as JsonRpcMessage;
  } catch {
    return { jsonrpc: "2.0", method: "(unparseable)", params: { line } };
  }
}
