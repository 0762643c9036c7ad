import { createServer, type RequestContext, type Server } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";

// Over Streamable HTTP, whatever a caller may not see answers exactly (status, headers, body) as what does not
// exist, by every route: the 2026-07-28 routing-header checks too, served alone and in a mounted module.

const URL_ = "http://127.0.0.1:3000/mcp";
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;
// One item a page, one key: a cursor is the same text wherever the same page is served.
const PAGED = { pageSize: 1, stateKey: "k".repeat(32) };
const region = { region: z.string().meta({ "x-mcp-header": "Region" }) };

function desk(withHidden = true): Server {
  const s = createServer({ name: "desk", version: "1", ...PAGED });
  s.tool({ name: "open", description: "Anyone", input: region, handler: ({ region }) => region });
  if (withHidden)
    s.tool({ name: "admin_tool", description: "Admins", guard: isAdmin, input: region, handler: () => 1 });
  s.tool({ name: "root_tool", description: "Admins too", guard: isAdmin, handler: () => "root" });
  s.tool({ name: "zzz", description: "Last", handler: () => "z" });
  s.tool({ name: "switched_off", description: "Disabled", input: region, handler: () => 1 }).disable();
  s.prompt({
    name: "brief",
    description: "Anyone",
    args: { topic: z.string() },
    complete: { topic: () => ["a"] },
    handler: () => "b",
  });
  if (withHidden) {
    s.prompt({
      name: "audit",
      description: "Admins",
      guard: isAdmin,
      args: { scope: z.string() },
      complete: { scope: () => ["all"] },
      handler: () => "x",
    });
    s.resource({ uri: "admin://log", guard: isAdmin, handler: () => "the log" });
    s.resource({
      uriTemplate: "user://{id}",
      guard: isAdmin,
      complete: { id: () => ["1"] },
      handler: ({ id }) => String(id),
    });
  }
  s.prompt({ name: "root_prompt", description: "Admins too", guard: isAdmin, handler: () => "root" });
  s.resource({ uri: "docs://readme", handler: () => "read me" });
  s.resource({ uri: "root://log", guard: isAdmin, handler: () => "root" });
  return s;
}

const LAYOUTS: [string, (withHidden?: boolean) => Server, string][] = [
  ["served alone", (withHidden) => desk(withHidden), ""],
  [
    "in a mounted module",
    (withHidden) => {
      const module = desk(withHidden).use((_operation, next) => next());
      return createServer({ name: "app", version: "1", ...PAGED }).mount("mod", module);
    },
    "mod.",
  ],
];

const handlerFor = (server: Server) =>
  createHttpHandler(server, { authenticate: () => ({ subject: "rob", scopes: ["read"] }) });

interface Seen {
  status: number;
  headers: [string, string][];
  body: string;
}

async function seen(response: Response, swap: string): Promise<Seen> {
  const body = (await response.text()).split(swap).join("X");
  return { status: response.status, headers: [...response.headers], body };
}

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };

function post(method: string, params: Record<string, unknown>, headers: Record<string, string>, id = 1): Request {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const all = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
  return new Request(URL_, { method: "POST", headers: all, body });
}

function stateless(method: string, params: Record<string, unknown>, extra: Record<string, string> = {}): Request {
  const name = (params.name ?? params.uri) as string | undefined;
  const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) };
  return post(method, { ...params, _meta: META }, { ...headers, ...extra });
}

/** Ask the same of a hidden item and of a missing one; the answers must match with the names swapped out. */
async function same(
  handle: HttpHandler,
  ask: (target: string) => Request,
  hidden: string,
  missing: string,
  what: string,
): Promise<void> {
  const toHidden = await seen(await handle(ask(hidden)), hidden);
  const toMissing = await seen(await handle(ask(missing)), missing);
  expect(toMissing.body, what).toMatch(/"(result|error)"/);
  expect(toHidden, what).toEqual(toMissing);
}

describe.each(LAYOUTS)("hidden answers as missing over HTTP, 2026-07-28 (%s)", (_layout, make, prefix) => {
  it("tools/call with every Mcp-Param-* and Mcp-Name variation", async () => {
    const handle = handlerFor(make());
    const variations: [string, Record<string, unknown>, Record<string, string>][] = [
      ["no Mcp-Param header", { region: "eu" }, {}],
      ["a mismatching Mcp-Param header", { region: "eu" }, { "mcp-param-region": "us" }],
      ["a header without its argument", {}, { "mcp-param-region": "eu" }],
      ["a matching header", { region: "eu" }, { "mcp-param-region": "eu" }],
      ["a mismatching Mcp-Name", { region: "eu" }, { "mcp-name": "other" }],
    ];
    for (const [what, args, extra] of variations) {
      const ask = (name: string) => stateless("tools/call", { name, arguments: args }, extra);
      await same(handle, ask, `${prefix}admin_tool`, `${prefix}no_tool`, what);
      await same(handle, ask, `${prefix}switched_off`, `${prefix}no_tool`, `${what}, a disabled tool`);
    }
    // A tool the caller may use still has its headers checked.
    const refused = await handle(stateless("tools/call", { name: `${prefix}open`, arguments: { region: "eu" } }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: -32020, message: expect.stringContaining("Mcp-Param-region") },
    });
  });

  it("prompts/get, resources/read and completions", async () => {
    const handle = handlerFor(make());
    const prompt = (name: string) => stateless("prompts/get", { name, arguments: { scope: "x" } });
    await same(handle, prompt, `${prefix}audit`, `${prefix}nope`, "prompts/get");
    const noName = (name: string) => stateless("prompts/get", { name }, { "mcp-name": "" });
    await same(handle, noName, `${prefix}audit`, `${prefix}nope`, "prompts/get, Mcp-Name mismatch");
    await same(handle, (uri) => stateless("resources/read", { uri }), "admin://log", "nope://log", "resources/read");
    await same(handle, (uri) => stateless("resources/read", { uri }), "user://1", "nope://1", "template read");
    const completePrompt = (name: string) =>
      stateless("completion/complete", { ref: { type: "ref/prompt", name }, argument: { name: "scope", value: "" } });
    await same(handle, completePrompt, `${prefix}audit`, `${prefix}nope`, "prompt completion");
    const completeTemplate = (uri: string) =>
      stateless("completion/complete", { ref: { type: "ref/resource", uri }, argument: { name: "id", value: "" } });
    await same(handle, completeTemplate, "user://{id}", "nope://{id}", "template completion");
  });

  it("subscriptions/listen with resourceSubscriptions is acknowledged alike", async () => {
    const handle = handlerFor(make());
    const first = async (uri: string) => {
      const response = await handle(
        stateless("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }),
      );
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const { value } = await reader.read();
      await reader.cancel();
      return {
        status: response.status,
        headers: [...response.headers],
        event: new TextDecoder().decode(value).split(uri).join("X"),
      };
    };
    expect(await first("admin://log")).toEqual(await first("nope://log"));
  });

  it("list pages and their cursors are those of a server without the hidden items", async () => {
    const withHidden = handlerFor(make(true));
    const without = handlerFor(make(false));
    for (const [method, key] of [
      ["tools/list", "tools"],
      ["prompts/list", "prompts"],
      ["resources/list", "resources"],
    ]) {
      let cursor: string | undefined;
      do {
        const ask = () => stateless(method as string, cursor === undefined ? {} : { cursor });
        const page = await seen(await withHidden(ask()), "\0");
        expect(page, method).toEqual(await seen(await without(ask()), "\0"));
        const parsed = JSON.parse(page.body) as { result: Record<string, unknown> };
        expect(parsed.result[key as string]).toBeDefined();
        cursor = parsed.result.nextCursor as string | undefined;
      } while (cursor !== undefined);
    }
  });
});

describe.each(LAYOUTS)("hidden answers as missing over HTTP, handshake era (%s)", (_layout, make, prefix) => {
  it("tools/call, prompts/get, resources/read, completions and resources/subscribe in one session", async () => {
    const handle = handlerFor(make());
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } };
    const opened = await handle(post("initialize", init, {}));
    const session = opened.headers.get("mcp-session-id") as string;
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const notify = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await handle(
      new Request(URL_, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: notify,
      }),
    );
    const ask = (method: string, params: (target: string) => Record<string, unknown>) => (target: string) =>
      post(method, params(target), headers, 2);
    await same(
      handle,
      ask("tools/call", (name) => ({ name, arguments: { region: "eu" } })),
      `${prefix}admin_tool`,
      `${prefix}no_tool`,
      "tools/call",
    );
    await same(
      handle,
      ask("prompts/get", (name) => ({ name, arguments: { scope: "x" } })),
      `${prefix}audit`,
      `${prefix}nope`,
      "prompts/get",
    );
    await same(
      handle,
      ask("resources/read", (uri) => ({ uri })),
      "admin://log",
      "nope://log",
      "resources/read",
    );
    await same(
      handle,
      ask("resources/subscribe", (uri) => ({ uri })),
      "admin://log",
      "nope://log",
      "subscribe",
    );
    const complete = ask("completion/complete", (name) => ({
      ref: { type: "ref/prompt", name },
      argument: { name: "scope", value: "" },
    }));
    await same(handle, complete, `${prefix}audit`, `${prefix}nope`, "completion");
  });
});
