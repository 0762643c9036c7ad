import { createServer, type RequestContext } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post, URL_ } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Two callers of one server run as two processes on one Redis: a session is its opener's on every process, and what
// is told to sessions (list changes, resource updates) reaches only the sessions whose principal may hear it.

const TOKENS: Record<string, { subject: string; scopes: string[] }> = {
  "Bearer ada-token": { subject: "ada", scopes: ["billing"] },
  "Bearer bob-token": { subject: "bob", scopes: ["support"] },
};
const scoped = (scope: string) => (ctx: RequestContext) => ctx.auth?.scopes.includes(scope) === true;

const { redis, engines, handlers } = sharedRedis();

type Process = HttpHandler & { server: ReturnType<typeof createServer> };

function process_(namespace: string): Process {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "two-callers", version: "1", engine });
  server.tool({ name: "whoami", description: "Anyone", handler: (_args, ctx) => ctx.auth?.subject ?? "nobody" });
  server.tool({ name: "refund", description: "Billing only", guard: scoped("billing"), handler: () => "refunded" });
  server.resource({ uri: "ledger://ada", guard: scoped("billing"), handler: () => "ada's ledger" });
  server.resource({ uri: "note://public", handler: () => "for all" });
  const handle = createHttpHandler(server, {
    authenticate: (request) => {
      const principal = TOKENS[request.headers.get("authorization") ?? ""];
      return principal && { ...principal, token: request.headers.get("authorization") as string };
    },
  });
  handlers.push(handle);
  return Object.assign(handle, { server });
}

function reading(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async until(holds: (text: string) => boolean): Promise<string> {
      while (!holds(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    cancel: () => reader.cancel(),
  };
}

async function open(handle: HttpHandler, token: string): Promise<Record<string, string>> {
  const opened = await handle(post(initialize(1, "2025-11-25"), { ...H, authorization: token }));
  expect(opened.status).toBe(200);
  const headers = { ...H, authorization: token, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  return headers;
}

async function exactly(response: Response) {
  return { status: response.status, headers: [...response.headers], body: await response.text() };
}

it("another caller's use of a session id on another process is answered byte for byte as an unknown id", async () => {
  const namespace = `callers-${crypto.randomUUID()}`;
  const [a, b] = [process_(namespace), process_(namespace)];
  const ada = await open(a, "Bearer ada-token");
  // B has ada's session live too (it served her), so the refusal cannot come from B not knowing it.
  expect((await b(post({ jsonrpc: "2.0", id: 2, method: "ping" }, ada))).status).toBe(200);
  const session = ada["mcp-session-id"] as string;
  const asBob = { ...H, authorization: "Bearer bob-token" };
  const unknown = { ...asBob, "mcp-session-id": crypto.randomUUID() };
  const stolen = { ...asBob, "mcp-session-id": session };
  const call = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } };
  for (const handle of [a, b]) {
    expect(await exactly(await handle(post(call, stolen)))).toEqual(await exactly(await handle(post(call, unknown))));
    const sse = { accept: "text/event-stream", authorization: "Bearer bob-token" };
    expect(await exactly(await handle(get({ ...sse, "mcp-session-id": session })))).toEqual(
      await exactly(await handle(get({ ...sse, "mcp-session-id": unknown["mcp-session-id"] as string }))),
    );
    const remove = (id: string) =>
      handle(
        new Request(URL_, { method: "DELETE", headers: { authorization: "Bearer bob-token", "mcp-session-id": id } }),
      );
    expect(await exactly(await remove(session))).toEqual(
      await exactly(await remove(unknown["mcp-session-id"] as string)),
    );
  }
  // Ada's session lives on, on both processes.
  for (const handle of [a, b]) {
    const response = await handle(post(call, ada));
    expect(await response.json()).toMatchObject({ id: 3, result: { content: [{ text: "ada" }] } });
  }
});

it("a guarded change made on one process reaches only the sessions allowed, wherever their GET streams are", async () => {
  const namespace = `callers-${crypto.randomUUID()}`;
  const [a, b, c] = [process_(namespace), process_(namespace), process_(namespace)];
  const ada = await open(a, "Bearer ada-token");
  const bob = await open(b, "Bearer bob-token");
  const subscribe = (uri: string, id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "resources/subscribe",
    params: { uri },
  });
  for (const headers of [ada, bob]) await c(post(subscribe("note://public", 2), headers));
  await a(post(subscribe("ledger://ada", 3), ada));
  // Bob's attempt at ada's resource: refused as unknown, or kept and never told (either way he hears nothing of it).
  await b(post(subscribe("ledger://ada", 3), bob));
  // Each GET stream held by a process that did not open its session.
  const adaStream = reading(
    await b(
      get({
        accept: "text/event-stream",
        authorization: ada.authorization as string,
        "mcp-session-id": ada["mcp-session-id"] as string,
      }),
    ),
  );
  const bobStream = reading(
    await a(
      get({
        accept: "text/event-stream",
        authorization: bob.authorization as string,
        "mcp-session-id": bob["mcp-session-id"] as string,
      }),
    ),
  );
  c.server.resourceUpdated("ledger://ada");
  c.server.registered("tool", "refund")?.disable();
  // List changes go out batched: ada hears this one first, then a change both hear (what bob was told of ada's
  // changes went out on the same connection before it).
  await within(
    adaStream.until((text) => text.includes("list_changed")),
    "ada's list change",
  );
  c.server.resourceUpdated("note://public");
  const adaText = await within(
    adaStream.until((text) => text.includes("note://public")),
    "ada's public update",
  );
  const bobText = await within(
    bobStream.until((text) => text.includes("note://public")),
    "bob's public update",
  );
  await adaStream.cancel();
  await bobStream.cancel();
  expect(adaText).toContain("ledger://ada");
  expect(adaText).toContain("notifications/tools/list_changed");
  expect(bobText).not.toContain("ledger://ada");
  expect(bobText).not.toContain("list_changed");
});
