import type { Client, ClientOptions, Tool } from "@modelcontextprotocol/client";
import { createServer, type Guard, type Server, type ToolDefinition } from "@toolsmith/core";
import { type JsonSchema, jsonSchema } from "@toolsmith/core/json-schema";
import { callTool, type RemoteBounds } from "./forward.js";
import { type Backoff, Link, type RemoteEra, type RemoteTarget } from "./link.js";

// A remote server as a core Server: its tools registered as the module's own (so a parent's guards, middleware and
// scopes apply as to local ones), listed again when the remote says its list changed, calls forwarded.

/** What the parent adds to one of the remote's tools. */
export interface RemoteToolOptions {
  readonly guard?: Guard;
  readonly scopes?: readonly string[];
  readonly use?: ToolDefinition["use"];
}

/** A remote MCP server and how to serve it. */
export type RemoteOptions = RemoteTarget &
  RemoteBounds & {
    /** How the module names itself (default: the URL or command). */
    readonly name?: string;
    /** Which era to speak to the remote (default "auto"). */
    readonly era?: RemoteEra;
    readonly backoff?: Backoff;
    /** The most tools taken from the remote (default 10,000); past it, a list is refused. */
    readonly maxTools?: number;
    /** A guard, scopes or middleware for a remote tool, by its name on the remote. */
    readonly tool?: (tool: Tool) => RemoteToolOptions | undefined;
    /** Further options for the official client that speaks to the remote. */
    readonly client?: Partial<ClientOptions>;
  };

/** A remote served as a module: mount `server`; `close()` ends the connection. */
export interface Remote {
  readonly server: Server;
  /** Lists the remote's tools again now (it also happens on the remote's list change and on a list after a failure). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

const VENDOR = jsonSchema({ type: "object" })["~standard"].vendor;

// The remote's schema, listed as it gave it; the remote checks its own arguments, so any value passes here.
function passThrough(schema: unknown): JsonSchema {
  const listed = () => structuredClone(schema) as Record<string, unknown>;
  return {
    "~standard": {
      version: 1,
      vendor: VENDOR,
      validate: (value) => ({ value }),
      jsonSchema: { input: listed, output: listed },
    },
  };
}

function labelOf(options: RemoteOptions): string {
  if (options.name) return `remote "${options.name}"`;
  return "url" in options ? `remote ${String(options.url)}` : `remote command "${options.command}"`;
}

/**
 * Serve a remote MCP server as a module, to mount under a prefix.
 * @example
 * ```ts source="examples/remote.ts#createRemote"
 * const weather = await createRemote({ url: "https://weather.example/mcp" });
 * const app = createServer({ name: "gateway", version: "1.0.0" }).mount("weather", weather.server);
 * ```
 */
export async function createRemote(options: RemoteOptions): Promise<Remote> {
  const server = createServer({ name: options.name ?? "remote", version: "1.0.0" });
  const maxTools = options.maxTools ?? 10_000;
  const handles = new Map<string, { remove(): void }>();
  let listed = false;
  let syncing: Promise<void> | undefined;
  let again = false;

  const link = new Link({
    target: options,
    era: options.era ?? "auto",
    label: labelOf(options),
    backoff: options.backoff,
    client: options.client,
    setup: (client) => {
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        void refresh().catch(() => undefined);
      });
    },
  });

  async function listAll(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: options.timeoutMs ?? 60_000,
        cacheMode: "refresh",
      });
      tools.push(...page.tools);
      if (tools.length > maxTools) throw new Error(`${link.label} lists more than ${maxTools} tools`);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  function register(tools: Tool[]): void {
    for (const handle of handles.values()) handle.remove();
    handles.clear();
    for (const tool of tools) {
      const extra = options.tool?.(tool) ?? {};
      const definition: ToolDefinition = {
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        // Core wants a description; a remote tool without one is described by its title or name.
        description: tool.description || tool.title || tool.name,
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
        input: passThrough(tool.inputSchema) as never,
        ...(tool.outputSchema === undefined ? {} : { output: passThrough(tool.outputSchema) }),
        ...extra,
        handler: (args: unknown, ctx) => callTool(link, tool.name, args, ctx, options),
      };
      try {
        handles.set(tool.name, server.tool(definition));
      } catch (error) {
        server.log({ level: "warning", message: `${link.label}: tool "${tool.name}" left out`, error });
      }
    }
    listed = true;
  }

  // One list at a time; a change heard during one lists once more after it (a flood costs at most two lists).
  function refresh(): Promise<void> {
    if (syncing) {
      again = true;
      return syncing;
    }
    syncing = (async () => {
      do {
        again = false;
        const client = await link.client();
        try {
          register(await listAll(client));
        } catch (error) {
          link.drop(client);
          throw error;
        }
      } while (again);
    })().finally(() => {
      syncing = undefined;
    });
    return syncing;
  }

  // A list while the remote has never answered tries it again (within the backoff); failing, the module lists nothing.
  server.use(async (operation, next) => {
    if (!listed && operation.method === "tools/list") await refresh().catch(() => undefined);
    return next();
  });

  await refresh().catch((error) => {
    server.log({ level: "warning", message: `${link.label} is not listed yet`, error });
  });
  return { server, refresh, close: () => link.close() };
}
