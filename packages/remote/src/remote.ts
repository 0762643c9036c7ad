import type {
  Client,
  ClientOptions,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/client";
import { createServer, type Guard, type Server, type ToolDefinition } from "@toolsmith/core";
import { ASKED, answerAsked, asking, callerAsksTask, type UntiedQuestions } from "./ask.js";
import { callTool, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TIMEOUT_MS, type RemoteBounds } from "./forward.js";
import { Http } from "./http.js";
import { promptDefinition, resourceDefinition, templateDefinition } from "./items.js";
import { Lane } from "./lane.js";
import { type Backoff, Link, type RemoteEra, type RemoteTarget } from "./link.js";
import { Notes } from "./notes.js";
import { passThrough } from "./pass-through.js";
import { FRAMING_BYTES } from "./stream-bounds.js";
import { runRemoteTask, taskSupportOf } from "./tasks.js";
import { DEFAULT_MAX_SUBSCRIPTIONS, Updates } from "./updates.js";

// A remote server as a core Server: its tools registered as the module's own (so a parent's guards, middleware and
// scopes apply as to local ones), listed again when the remote says its list changed, calls forwarded.

/** What the parent adds to one of the remote's tools, prompts, resources or templates. */
export interface RemoteItemOptions {
  readonly guard?: Guard;
  readonly scopes?: readonly string[];
  readonly use?: ToolDefinition["use"];
}

/** What the parent adds to one of the remote's tools. */
export type RemoteToolOptions = RemoteItemOptions;

/** The guard, scopes and middleware of `given`, nothing else (a handler or name in it is not taken). */
function served(given: RemoteItemOptions | undefined): RemoteItemOptions {
  if (!given) return {};
  const { guard, scopes, use } = given;
  return {
    ...(guard === undefined ? {} : { guard }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(use === undefined ? {} : { use }),
  };
}

/** A remote MCP server and how to serve it. */
export type RemoteOptions = RemoteTarget &
  RemoteBounds & {
    /** How the module names itself (default: the URL or command). */
    readonly name?: string;
    /**
     * A server to register the remote's items on as its own, unprefixed (a gateway in front of one remote); by
     * default the remote gets a server of its own, to mount under a prefix. An item whose name or URI the server
     * already has is left out, with a warning logged.
     */
    readonly into?: Server;
    /** Which era to speak to the remote (default "auto"). */
    readonly era?: RemoteEra;
    readonly backoff?: Backoff;
    /** The most tools (prompts, resources, templates) taken from the remote (default 10,000 each); past it, a list fails. */
    readonly maxItems?: number;
    /** The most URIs subscribed on the remote at once for the gateway's subscribers (default 1,000). */
    readonly maxSubscriptions?: number;
    /** A guard, scopes or middleware for a remote tool, by its name on the remote. */
    readonly tool?: (tool: Tool) => RemoteToolOptions | undefined;
    /** A guard, scopes or middleware for a remote prompt, by its name on the remote. */
    readonly prompt?: (prompt: Prompt) => RemoteItemOptions | undefined;
    /** A guard, scopes or middleware for a remote resource or resource template (`"uriTemplate" in item`). */
    readonly resource?: (item: Resource | ResourceTemplate) => RemoteItemOptions | undefined;
    /** A question that cannot say which call it belongs to (a handshake-era remote on stdio): "refuse" (default). */
    readonly untiedQuestions?: UntiedQuestions;
    /** Further options for the official client that speaks to the remote. */
    readonly client?: Partial<ClientOptions>;
  };

/** A remote served as a module: mount `server`; `close()` ends the connection. */
export interface Remote {
  /** The server the remote's items are on: its own, to mount, or the one given as `into`. */
  readonly server: Server;
  /** Lists the remote's tools again now (it also happens on the remote's list change and on a list after a failure). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** One page of each list, as the remote answers it. */
interface ListResults {
  "tools/list": { tools: Tool[]; nextCursor?: string };
  "prompts/list": { prompts: Prompt[]; nextCursor?: string };
  "resources/list": { resources: Resource[]; nextCursor?: string };
  "resources/templates/list": { resourceTemplates: ResourceTemplate[]; nextCursor?: string };
}
type ListMethod = keyof ListResults;

/** The client's own filter of a listed page of tools (not public in client 2.4.0, so called only when there). */
interface ExcludesTools {
  _excludeInvalidXMcpHeaderTools?: (page: { tools: Tool[] }) => void;
}

interface Listed {
  readonly tools: Tool[];
  readonly prompts: Prompt[];
  readonly resources: Resource[];
  readonly templates: ResourceTemplate[];
  readonly completes: boolean;
}

const CHANGES = [
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
] as const;
const LISTS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"]);

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
  const server = options.into ?? createServer({ name: options.name ?? "remote", version: "1.0.0" });
  const maxItems = options.maxItems ?? 10_000;
  const handles = new Map<string, { remove(): void }>();
  let everListed = false;
  let syncing: Promise<void> | undefined;
  let again = false;

  const notes = new Notes(labelOf(options), (entry) => server.log(entry));
  const http = new Http(
    notes.boundsFor(() => options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES),
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  // Over HTTP a tools/call goes straight on the link's session (lane.ts), the client kept for the rest.
  const lane =
    "url" in options
      ? new Lane(
          http,
          new URL(String(options.url)),
          options.headers ?? {},
          notes,
          answerAsked(options.client?.capabilities ?? ASKED, labelOf(options)),
        )
      : undefined;
  const via = { ...options, notes, ...(lane ? { lane } : {}) };
  // A 2026-07-28 remote tells list changes only on a subscriptions/listen stream, which listChanged opens.
  const changed = { autoRefresh: false, debounceMs: 0, onChanged: () => void refresh().catch(() => undefined) };
  const updates = new Updates(
    () => link,
    options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS,
    (uri) => server.resourceUpdated(uri),
    (entry) => server.log(entry),
  );
  const link = new Link({
    target: options,
    era: options.era ?? "auto",
    label: labelOf(options),
    backoff: options.backoff,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    client: { ...options.client, listChanged: { tools: changed, prompts: changed, resources: changed } },
    untiedQuestions: options.untiedQuestions ?? "refuse",
    setup: (client) => {
      for (const method of CHANGES) {
        client.setNotificationHandler(method, () => {
          void refresh().catch(() => undefined);
        });
      }
      updates.setup(client);
    },
    connected: (client) => {
      lane?.learn(client);
      updates.connected(client);
    },
    fetch: http.fetch,
    maxLineBytes: (options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES) + FRAMING_BYTES,
  });

  const every = async <T>(
    get: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined; items: T[] }>,
    what: string,
  ): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(cursor);
      items.push(...page.items);
      if (items.length > maxItems) throw new Error(`${link.label} lists more than ${maxItems} ${what}`);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return items;
  };

  async function listAll(client: Client): Promise<Listed> {
    const caps = client.getServerCapabilities() ?? {};
    const request = { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, cacheMode: "refresh" as const };
    // One page per request, so that `maxItems` is checked as each page comes. Without a cursor the client's list
    // methods walk every page themselves (up to its `listMaxPages`, 64) and hold them all before answering: a remote
    // paging without end made the gateway hold hundreds of MB, and one with more than 64 pages could not be listed.
    const page = <M extends ListMethod>(method: M, cursor: string | undefined) =>
      client.request({ method, params: cursor === undefined ? {} : { cursor } } as never, request) as Promise<
        ListResults[M]
      >;
    return {
      tools: caps.tools
        ? await every(async (c) => {
            const listed = await page("tools/list", c);
            // What the client does to each page it lists itself (SEP-2243: a tool whose x-mcp-header
            // declarations are invalid is left out in 2026-07-28 over HTTP).
            (client as unknown as ExcludesTools)._excludeInvalidXMcpHeaderTools?.(listed);
            return { nextCursor: listed.nextCursor, items: listed.tools };
          }, "tools")
        : [],
      prompts: caps.prompts
        ? await every(async (c) => {
            const listed = await page("prompts/list", c);
            return { nextCursor: listed.nextCursor, items: listed.prompts };
          }, "prompts")
        : [],
      resources: caps.resources
        ? await every(async (c) => {
            const listed = await page("resources/list", c);
            return { nextCursor: listed.nextCursor, items: listed.resources };
          }, "resources")
        : [],
      templates: caps.resources
        ? await every(async (c) => {
            const listed = await page("resources/templates/list", c);
            return { nextCursor: listed.nextCursor, items: listed.resourceTemplates };
          }, "resource templates")
        : [],
      completes: caps.completions !== undefined,
    };
  }

  function add(key: string, make: () => { remove(): void }): void {
    try {
      handles.set(key, make());
    } catch (error) {
      server.log({ level: "warning", message: `${link.label}: ${key} left out`, error });
    }
  }

  function register(listed: Listed, client: Client): void {
    for (const handle of handles.values()) handle.remove();
    handles.clear();
    for (const tool of listed.tools) {
      add(`tool ${tool.name}`, () => server.tool(toolDefinition(tool, client)));
    }
    for (const prompt of listed.prompts) {
      add(`prompt ${prompt.name}`, () =>
        server.prompt({
          ...promptDefinition(link, prompt, via, listed.completes),
          ...served(options.prompt?.(prompt)),
        }),
      );
    }
    for (const resource of listed.resources) {
      add(`resource ${resource.uri}`, () =>
        server.resource({
          ...resourceDefinition(link, resource, via, updates.watch),
          ...served(options.resource?.(resource)),
        }),
      );
    }
    for (const template of listed.templates) {
      add(`template ${template.uriTemplate}`, () =>
        server.resource({
          ...templateDefinition(link, template, via, listed.completes, updates.watch),
          ...served(options.resource?.(template)),
        }),
      );
    }
    everListed = true;
  }

  function toolDefinition(tool: Tool, client: Client): ToolDefinition {
    // As the remote runs it as a task; a call the caller made a task runs as one there (tasks.ts).
    const task = taskSupportOf(client, tool, lane);
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return {
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      // Core wants a description; a remote tool without one is described by its title or name.
      description: tool.description || tool.title || tool.name,
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      input: passThrough(tool.inputSchema) as never,
      ...(tool.outputSchema === undefined ? {} : { output: passThrough(tool.outputSchema) }),
      ...served(options.tool?.(tool)),
      ...(task === undefined ? {} : { task }),
      handler: (args: unknown, ctx) =>
        task !== undefined && lane !== undefined && (ctx.task !== undefined || callerAsksTask())
          ? runRemoteTask(link, lane, tool, args, ctx, timeout)
          : callTool(link, tool, args, ctx, via),
    };
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
          register(await listAll(client), client);
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
    if (!everListed && LISTS.has(operation.method)) await refresh().catch(() => undefined);
    return next();
  });
  // What a call, read or get sends the remote runs as its caller: the remote's questions reach that caller (ask.ts).
  server.use(asking);

  await refresh().catch((error) => {
    server.log({ level: "warning", message: `${link.label} is not listed yet`, error });
  });
  return {
    server,
    refresh,
    close: async () => {
      updates.close();
      try {
        await link.close();
      } finally {
        http.close();
      }
    },
  };
}
