import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connectLines, replyTo } from "../connection/connection.test-util.js";
import { SESSION_BOUNDS } from "../engine/session-bounds.js";
import type { Server } from "../index.js";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

// A live registry: handles switch entries on and off, change and remove them, and every open connection hears of it.

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function server() {
  const s = createServer({ name: "live", version: "1" });
  const echo = s.tool({ name: "echo", description: "Echo", input: { text: z.string() }, handler: ({ text }) => text });
  const wipe = s.tool({ name: "wipe", description: "Wipe everything", handler: () => "wiped" });
  const brief = s.prompt({ name: "brief", description: "A brief", handler: () => "Brief me" });
  const doc = s.resource({ uri: "docs://readme", handler: () => "read me" });
  return { s, echo, wipe, brief, doc };
}

function newServer() {
  return createServer({ name: "table-test", version: "1.0.0" });
}

const noop = () => "ok";

const names = async (client: Awaited<ReturnType<typeof createTestClient>>) =>
  (await client.listTools()).map((tool) => tool.name);

describe("handles", () => {
  it("disable hides a tool from lists and calls (answered as an unknown tool); enable brings it back", async () => {
    const { s, wipe } = server();
    const client = await createTestClient(s);
    wipe.disable();
    expect(wipe.enabled).toBe(false);
    expect(await names(client)).toEqual(["echo"]);
    const error = await rpcError(client.callTool("wipe"));
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: "Unknown tool: wipe" });
    wipe.enable();
    expect(await names(client)).toEqual(["echo", "wipe"]);
    expect(await client.callTool("wipe")).toMatchObject({ content: [{ text: "wiped" }] });
  });

  it("update changes the definition in place, keeping the list's order; a rename re-keys", async () => {
    const { s, echo } = server();
    const client = await createTestClient(s);
    echo.update({ description: "Echo, louder", handler: ({ text }) => text.toUpperCase() });
    expect((await client.listTools())[0]).toMatchObject({ name: "echo", description: "Echo, louder" });
    expect(await client.callTool("echo", { text: "hi" })).toMatchObject({ content: [{ text: "HI" }] });
    echo.update({ name: "shout" });
    expect(echo.key).toBe("shout");
    expect(await names(client)).toEqual(["shout", "wipe"]);
    expect(s.registered("tool", "shout")).toBe(echo);
    expect(s.registered("tool", "echo")).toBeUndefined();
  });

  it("an update that does not compile, or clashes, throws and changes nothing", async () => {
    const { s, echo } = server();
    expect(definitionError(() => echo.update({ name: "bad name!" })).message).toMatch(
      /^Tool name "bad name!" is invalid/,
    );
    expect(definitionError(() => echo.update({ description: "" })).message).toMatch(/^Tool "echo" has no description/);
    expect(definitionError(() => echo.update({ name: "wipe" })).message).toContain('Tool "wipe" is defined twice');
    const client = await createTestClient(s);
    expect(await client.listTools()).toMatchObject([{ name: "echo", description: "Echo" }, { name: "wipe" }]);
  });

  it("remove takes it away for good; the name is free again; the handle then refuses", async () => {
    const { s, wipe } = server();
    wipe.remove();
    expect(wipe.removed).toBe(true);
    expect(() => wipe.enable()).toThrow(/was removed/);
    s.tool({ name: "wipe", description: "A new wipe", handler: () => "new" });
    const client = await createTestClient(s);
    expect(await client.callTool("wipe")).toMatchObject({ content: [{ text: "new" }] });
  });

  it("resources, templates and prompts have handles too, and registered() finds them", async () => {
    const { s, brief, doc } = server();
    const template = s.resource({ uriTemplate: "docs://{name}", handler: ({ name }) => `doc ${String(name)}` });
    expect(s.registered("prompt", "brief")).toBe(brief);
    expect(s.registered("resource", "docs://readme")).toBe(doc);
    expect(s.registered("resourceTemplate", "docs://{name}")).toBe(template);
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    doc.disable();
    // The template still matches the URI once the static resource is off.
    expect(await client.readResource("docs://readme")).toMatchObject({ contents: [{ text: "doc readme" }] });
    template.disable();
    expect((await rpcError(client.readResource("docs://readme"))).code).toBe(ErrorCode.ResourceNotFound);
    brief.disable();
    expect((await rpcError(client.getPrompt("brief"))).code).toBe(ErrorCode.InvalidParams);
  });

  it("capabilities say lists can change, and subscriptions exist, once a kind is registered", () => {
    expect(server().s.capabilities()).toEqual({
      logging: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });
    expect(createServer({ name: "empty", version: "1" }).capabilities()).toEqual({ logging: {} });
  });
});

describe("keys: one entry per name, URI or URI template", () => {
  for (const [kind, add, message] of [
    [
      "tool",
      (server: Server) => server.tool({ name: "echo", description: "d", handler: noop }),
      'Tool "echo" is defined twice; give each tool its own name',
    ],
    [
      "prompt",
      (server: Server) => server.prompt({ name: "greet", handler: noop }),
      'Prompt "greet" is defined twice; give each prompt its own name',
    ],
    [
      "resource",
      (server: Server) => server.resource({ uri: "notes://all", handler: noop }),
      'Resource "notes://all" is defined twice; give each resource its own URI',
    ],
    [
      "resource template",
      (server: Server) => server.resource({ uriTemplate: "notes://{id}", handler: noop }),
      'Resource template "notes://{id}" is defined twice; give each template its own pattern',
    ],
  ] as const) {
    it(`duplicate ${kind}`, () => {
      const server = newServer();
      add(server);
      expect(definitionError(() => add(server)).message).toBe(message);
    });
  }

  it("a rejected definition is not registered", () => {
    const server = newServer();
    expect(() => server.tool({ name: "t", description: "d", input: z.string(), handler: noop })).toThrow(
      /^Tool "t" input must be an object schema/,
    );
    expect(server.capabilities()).toEqual({ logging: {} });
    server.tool({ name: "t", description: "d", handler: noop });
    expect(server.capabilities()).toEqual({ logging: {}, tools: { listChanged: true } });
  });
});

describe("list changes in the handshake era", () => {
  it("each initialized connection is told once per kind, however many changes were made together", async () => {
    const { s, echo, wipe, brief } = server();
    const a = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const b = await createTestClient(s, { protocolVersion: "2025-03-26" });
    echo.disable();
    wipe.update({ description: "Wipe it all" });
    brief.disable();
    await tick();
    for (const client of [a, b]) {
      expect(client.notifications.map((n) => n.method)).toEqual([
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
      ]);
    }
  });

  it("a connection that opens after a change, in the same tick, is not told of it: it lists what is there now", async () => {
    const s = createServer({ name: "late", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => 1 });
    const lines: string[] = [];
    const connection = s.connect({ send: (line) => lines.push(line) });
    connection.receive(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    );
    connection.receive(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await tick();
    expect(lines).toHaveLength(1);
    s.registered("tool", "t")?.disable();
    await tick();
    expect(lines.map((line) => JSON.parse(line).method)).toEqual([undefined, "notifications/tools/list_changed"]);
  });

  it("a connection that has not finished its handshake, or is closed, hears nothing", async () => {
    const { s, wipe } = server();
    const closed = await createTestClient(s, { protocolVersion: "2025-11-25" });
    closed.close();
    const stateless = await createTestClient(s);
    wipe.disable();
    await tick();
    expect(closed.notifications).toEqual([]);
    expect(stateless.notifications).toEqual([]);
  });

  it("resources/subscribe: resourceUpdated reaches subscribers of that URI only, until they unsubscribe", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    expect(await client.request("resources/subscribe", { uri: "docs://readme" })).toEqual({});
    s.resourceUpdated("docs://readme");
    s.resourceUpdated("docs://other");
    expect(client.notifications).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "docs://readme" } },
    ]);
    expect(await client.request("resources/unsubscribe", { uri: "docs://readme" })).toEqual({});
    s.resourceUpdated("docs://readme");
    expect(client.notifications).toHaveLength(1);
  });
});

describe("resources/subscribe is bounded per connection", () => {
  const { subscriptions, subscriptionBytes, subscriptionUriBytes } = SESSION_BOUNDS;
  const tooMany = {
    code: -32000,
    message: `Too many resource subscriptions on this session (at most ${subscriptions}, with ${subscriptionBytes} bytes of URIs in all); unsubscribe from one first`,
  };
  const open = async () => {
    const { s } = server();
    const session = connectLines(s);
    await replyTo(
      session,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    );
    return async (id: number, uri: string, method = "resources/subscribe") =>
      JSON.parse((await replyTo(session, JSON.stringify({ jsonrpc: "2.0", id, method, params: { uri } }))) ?? "null");
  };

  it("at most SESSION_BOUNDS.subscriptions URIs, each no longer than subscriptionUriBytes: past them -32000 / -32602", async () => {
    const subscribe = await open();
    for (let i = 1; i <= subscriptions; i++) {
      const reply = await subscribe(i, `docs://n/${i}`);
      if (reply.result === undefined) throw new Error(`subscription ${i} refused: ${JSON.stringify(reply)}`);
    }
    expect(await subscribe(-1, "docs://n/one-more")).toEqual({ jsonrpc: "2.0", id: -1, error: tooMany });
    // The same URI again is no new subscription; one given up makes room for another.
    expect((await subscribe(-2, "docs://n/1")).result).toEqual({});
    await subscribe(-3, "docs://n/1", "resources/unsubscribe");
    expect((await subscribe(-4, "docs://n/one-more")).result).toEqual({});
    expect((await subscribe(-5, `docs://${"x".repeat(subscriptionUriBytes)}`)).error).toEqual({
      code: ErrorCode.InvalidParams,
      message: `Invalid params: uri is longer than ${subscriptionUriBytes} bytes, the most a subscription may name`,
    });
  });

  it("at most subscriptionBytes of URIs in all: past them -32000, until one is given up", async () => {
    const subscribe = await open();
    const uri = (n: number) => `docs://${n}/`.padEnd(subscriptionUriBytes, "x");
    const fit = Math.floor(subscriptionBytes / subscriptionUriBytes);
    for (let n = 0; n < fit; n++) expect((await subscribe(n + 1, uri(n))).result).toEqual({});
    expect(await subscribe(-1, uri(fit))).toEqual({ jsonrpc: "2.0", id: -1, error: tooMany });
    await subscribe(-2, uri(0), "resources/unsubscribe");
    expect((await subscribe(-3, uri(fit))).result).toEqual({});
  });
});

describe("subscriptions/listen in 2026-07-28", () => {
  it("acknowledges the honoured subset first, then sends only what was asked, tagged with the listen id", async () => {
    const { s, echo, brief } = server();
    const client = await createTestClient(s);
    const tools = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://readme"] });
    const prompts = await client.listen({ promptsListChanged: true });
    expect(tools.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ["docs://readme"] });
    const ack = client.notifications.find((n) => n.method === "notifications/subscriptions/acknowledged");
    expect(ack?.params?._meta).toEqual({ [MetaKey.subscriptionId]: tools.id });

    echo.disable();
    await tick();
    s.resourceUpdated("docs://readme");
    s.resourceUpdated("docs://not-asked");
    brief.disable();
    await tick();
    expect(tools.notifications).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { [MetaKey.subscriptionId]: tools.id } },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "docs://readme", _meta: { [MetaKey.subscriptionId]: tools.id } },
      },
    ]);
    expect(prompts.notifications.map((n) => n.method)).toEqual(["notifications/prompts/list_changed"]);
  });

  it("kinds the server does not have are left out of the acknowledgement", async () => {
    const s = createServer({ name: "tools-only", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => 1 });
    const client = await createTestClient(s);
    const listen = await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["x://y"],
    });
    expect(listen.acknowledged).toEqual({ toolsListChanged: true });
  });

  it("cancelled by the client: it ends with no reply and hears nothing more", async () => {
    const { s, echo } = server();
    const client = await createTestClient(s);
    const listen = await client.listen({ toolsListChanged: true });
    await listen.close();
    echo.disable();
    await tick();
    expect(client.notifications.filter((n) => n.method === "notifications/tools/list_changed")).toEqual([]);
    expect(client.messages.some((m) => m.direction === "out" && m.line.includes(`"id":"${listen.id}"`))).toBe(false);
  });

  it("ended by the server: a complete result carrying the subscription id", async () => {
    const s = createServer({ name: "end", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => 1 });
    const lines: string[] = [];
    const connection = s.connect({ send: (line) => lines.push(line) });
    const meta = {
      [MetaKey.protocolVersion]: "2026-07-28",
      [MetaKey.clientCapabilities]: {},
    };
    const done = connection.receive(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "subscriptions/listen",
        params: { _meta: meta, notifications: { toolsListChanged: true } },
      }),
    );
    expect(lines).toHaveLength(1);
    connection.endSubscriptions();
    await done;
    expect(JSON.parse(lines[1] as string)).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: {
        _meta: { [MetaKey.subscriptionId]: 9, [MetaKey.serverInfo]: { name: "end", version: "1" } },
        resultType: "complete",
      },
    });
  });

  it("does not exist in the handshake era, where notifications need no listen", async () => {
    const client = await createTestClient(server().s, { protocolVersion: "2025-11-25" });
    expect((await rpcError(client.request("subscriptions/listen", { notifications: {} }))).code).toBe(
      ErrorCode.MethodNotFound,
    );
  });
});
