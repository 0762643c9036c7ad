import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type Guard, type Server } from "@toolsmith/core";
import { type AuditRecord, audit } from "@toolsmith/core/middleware";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { createRemote, type RemoteOptions } from "./index.js";

// A Toolsmith server on stdio as the remote (toolsmith-remote.test-util.mjs, the built packages), in front of it a
// gateway over HTTP driven by the official client: the gateway's guards, scopes, middleware and audit on the
// remote's tools, prompts, resources and templates, mounted under "r" or registered as its own (`into`).

const REMOTE = fileURLToPath(new URL("./toolsmith-remote.test-util.mjs", import.meta.url));

type Era = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Era][] = [
  ["handshake era", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];
const MODES = [
  ["mounted under a prefix", "r."],
  ["registered unprefixed (into)", ""],
] as const;

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

// Only the client named "admin" sees the guarded items.
const admin: Guard = (ctx) => ctx.clientInfo?.name === "admin";

async function gateway(options: Partial<RemoteOptions>, era: Era, prefix: string) {
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.tool({ name: "local", description: "A local tool", handler: () => "here" });
  const audited: AuditRecord[] = [];
  app.use(audit((entry) => audited.push(entry)));
  const logged: string[] = [];
  app.setLogger((entry) => logged.push(entry.message));
  const remote = await createRemote({
    command: process.execPath,
    args: [REMOTE],
    era,
    backoff: { initialMs: 0 },
    ...(prefix === "" ? { into: app } : {}),
    ...options,
  } as RemoteOptions);
  open.push(remote);
  if (prefix !== "") app.mount(prefix.slice(0, -1), remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const connect = async (name: string) => {
    const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: era } });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    open.push(client);
    return client;
  };
  return { app, audited, logged, connect };
}

function textOf(result: unknown): string {
  const first = (result as { content?: { text?: string }[]; contents?: { text?: string }[] }) ?? {};
  return (first.content ?? first.contents ?? [])[0]?.text ?? "";
}

/** What a request answered, as JSON with `name` written NAME: a hidden item's answer must equal a missing one's. */
async function answer(request: Promise<unknown>, name: string): Promise<string> {
  const settled = await request.then(
    (result) => ({ result }),
    (error: { code?: number; message?: string; data?: unknown }) => ({
      code: error.code,
      message: error.message,
      data: error.data,
    }),
  );
  return JSON.stringify(settled).replaceAll(name, "NAME");
}

describe.each(ERAS)("a Toolsmith server on stdio as the remote, in the %s", (_, era) => {
  describe.each(MODES)("%s", (_, prefix) => {
    it("a guarded remote tool, prompt, resource and template answer a caller who may not see them as missing ones, by every route", async () => {
      const { connect } = await gateway(
        {
          tool: (tool) => (tool.name === "secret" ? { guard: admin } : undefined),
          prompt: (prompt) => (prompt.name === "plan" ? { guard: admin } : undefined),
          resource: (item) =>
            ("uri" in item ? item.uri === "info://secret" : item.uriTemplate === "vault://{id}")
              ? { guard: admin }
              : undefined,
        },
        era,
        prefix,
      );
      const guest = await connect("guest");
      const boss = await connect("admin");

      const tools = async (client: Client) =>
        (await client.listTools(undefined, { cacheMode: "refresh" })).tools.map((tool) => tool.name).sort();
      expect(await tools(guest)).toEqual(["local", `${prefix}add`, `${prefix}die`].sort());
      expect(await tools(boss)).toEqual(["local", `${prefix}add`, `${prefix}die`, `${prefix}secret`].sort());
      const prompts = async (client: Client) =>
        (await client.listPrompts(undefined, { cacheMode: "refresh" })).prompts.map((prompt) => prompt.name);
      expect(await prompts(guest)).toEqual([`${prefix}greet`]);
      expect((await prompts(boss)).sort()).toEqual([`${prefix}greet`, `${prefix}plan`]);
      const resources = async (client: Client) =>
        (await client.listResources(undefined, { cacheMode: "refresh" })).resources.map((item) => item.uri);
      expect(await resources(guest)).toEqual(["info://about"]);
      expect((await resources(boss)).sort()).toEqual(["info://about", "info://secret"]);
      const templates = async (client: Client) =>
        (await client.listResourceTemplates(undefined, { cacheMode: "refresh" })).resourceTemplates.map(
          (item) => item.uriTemplate,
        );
      expect(await templates(guest)).toEqual(["item://{id}"]);
      expect((await templates(boss)).sort()).toEqual(["item://{id}", "vault://{id}"]);

      // The guest: each route to a hidden item answers as the same route to one that does not exist.
      const same = async (hidden: [Promise<unknown>, string], missing: [Promise<unknown>, string]) =>
        expect(await answer(...hidden)).toBe(await answer(...missing));
      await same(
        [guest.callTool({ name: `${prefix}secret`, arguments: {} }), `${prefix}secret`],
        [guest.callTool({ name: `${prefix}nothing`, arguments: {} }), `${prefix}nothing`],
      );
      await same(
        [guest.getPrompt({ name: `${prefix}plan`, arguments: { topic: "x" } }), `${prefix}plan`],
        [guest.getPrompt({ name: `${prefix}nothing`, arguments: { topic: "x" } }), `${prefix}nothing`],
      );
      await same(
        [guest.readResource({ uri: "info://secret" }, { cacheMode: "bypass" }), "info://secret"],
        [guest.readResource({ uri: "info://nothing" }, { cacheMode: "bypass" }), "info://nothing"],
      );
      await same(
        [guest.readResource({ uri: "vault://7" }, { cacheMode: "bypass" }), "vault://7"],
        [guest.readResource({ uri: "nowhere://7" }, { cacheMode: "bypass" }), "nowhere://7"],
      );
      const complete = (
        client: Client,
        ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
        name: string,
      ) => client.complete({ ref, argument: { name, value: "a" } });
      await same(
        [complete(guest, { type: "ref/prompt", name: `${prefix}plan` }, "topic"), `${prefix}plan`],
        [complete(guest, { type: "ref/prompt", name: `${prefix}nothing` }, "topic"), `${prefix}nothing`],
      );
      await same(
        [complete(guest, { type: "ref/resource", uri: "vault://{id}" }, "id"), "vault://{id}"],
        [complete(guest, { type: "ref/resource", uri: "nowhere://{id}" }, "id"), "nowhere://{id}"],
      );

      // The admin reaches each of them on the remote.
      expect(textOf(await boss.callTool({ name: `${prefix}secret`, arguments: {} }))).toBe("the secret");
      const plan = await boss.getPrompt({ name: `${prefix}plan`, arguments: { topic: "beta" } });
      expect(JSON.stringify(plan.messages)).toContain("The plan for beta");
      expect(textOf(await boss.readResource({ uri: "info://secret" }, { cacheMode: "bypass" }))).toBe("the secret");
      expect(textOf(await boss.readResource({ uri: "vault://7" }, { cacheMode: "bypass" }))).toBe("vault 7");
      expect((await complete(boss, { type: "ref/prompt", name: `${prefix}plan` }, "topic")).completion.values).toEqual([
        "alpha",
      ]);
      expect((await complete(boss, { type: "ref/resource", uri: "vault://{id}" }, "id")).completion.values).toEqual([
        "alpha",
      ]);
    });

    it("the gateway's audit and an item's own middleware see remote calls, gets and reads as local ones; scopes are enforced", async () => {
      const ran: string[] = [];
      const { audited, logged, connect } = await gateway(
        {
          prompt: (prompt) =>
            prompt.name === "plan"
              ? { scopes: ["planner"] }
              : { use: [(operation, next) => (ran.push(`${operation.method} ${operation.name}`), next())] },
          resource: (item) =>
            "uri" in item && item.uri === "info://secret"
              ? { scopes: ["keeper"] }
              : { use: [(operation, next) => (ran.push(`${operation.method} ${operation.uri}`), next())] },
        },
        era,
        prefix,
      );
      const client = await connect("someone");
      expect(textOf(await client.callTool({ name: `${prefix}add`, arguments: { a: 1, b: 2 } }))).toBe("3");
      expect(textOf(await client.callTool({ name: "local", arguments: {} }))).toBe("here");
      const got = await client.getPrompt({ name: `${prefix}greet`, arguments: { name: "Ada" } });
      expect(JSON.stringify(got.messages)).toContain("Hello, Ada");
      expect(textOf(await client.readResource({ uri: "item://3" }, { cacheMode: "bypass" }))).toBe("item 3");
      expect(ran).toEqual([`prompts/get greet`, "resources/read item://3"]);
      expect(audited.map(({ method, name, uri, outcome }) => ({ method, name, uri, outcome }))).toEqual([
        { method: "tools/call", name: `${prefix}add`, uri: undefined, outcome: "ok" },
        { method: "tools/call", name: "local", uri: undefined, outcome: "ok" },
        { method: "prompts/get", name: `${prefix}greet`, uri: undefined, outcome: "ok" },
        { method: "resources/read", name: undefined, uri: "item://3", outcome: "ok" },
      ]);

      await expect(client.getPrompt({ name: `${prefix}plan`, arguments: { topic: "x" } })).rejects.toMatchObject({
        name: "InsufficientScopeError",
        requiredScope: "planner",
      });
      await expect(client.readResource({ uri: "info://secret" }, { cacheMode: "bypass" })).rejects.toMatchObject({
        name: "InsufficientScopeError",
        requiredScope: "keeper",
      });
      expect(logged.join("\n")).toMatch(new RegExp(`prompt "${prefix}plan" needs the scopes planner`));
      expect(logged.join("\n")).toMatch(/resource "info:\/\/secret" \(secret\) needs the scopes keeper/);
    });
  });

  it("a remote killed mid-call answers that call an isError naming it; the next call starts it again", async () => {
    const { connect } = await gateway({}, era, "r.");
    const client = await connect("someone");
    const died = await client.callTool({ name: "r.die", arguments: {} });
    expect(died.isError).toBe(true);
    expect(textOf(died)).toMatch(/^remote command ".*" failed/);
    expect(textOf(await client.callTool({ name: "local", arguments: {} }))).toBe("here");
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 2, b: 2 } }))).toBe("4");
  });

  it("two callers at once each get their own answer", async () => {
    const { connect } = await gateway({}, era, "r.");
    const [one, two] = [await connect("one"), await connect("two")];
    const sums = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? one : two).callTool({ name: "r.add", arguments: { a: i, b: 1000 } }).then(textOf),
      ),
    );
    expect(sums).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1000)));
  });
});

// `into` a server: what it serves already stays its own, and an option that throws leaves its item out.
describe("into a server", () => {
  it("that has an item of the same name keeps its own and leaves the remote's out, with a warning", async () => {
    const app: Server = createServer({ name: "gateway", version: "1.0.0" });
    app.tool({ name: "add", description: "The gateway's own add", handler: () => "own" });
    const warnings: string[] = [];
    app.setLogger((entry) => warnings.push(`${entry.level} ${entry.message}`));
    const remote = await createRemote({ command: process.execPath, args: [REMOTE], era: "legacy", into: app });
    open.push(remote);
    expect(warnings.join("\n")).toMatch(/warning remote command ".*": tool add left out/);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const client = new Client({ name: "c", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    open.push(client);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("own");
    expect(textOf(await client.callTool({ name: "secret", arguments: {} }))).toBe("the secret");
  });

  it("an option that throws for an item leaves that item out (never served without its guard), with a warning", async () => {
    const app: Server = createServer({ name: "gateway", version: "1.0.0" });
    const warnings: string[] = [];
    app.setLogger((entry) => warnings.push(`${entry.level} ${entry.message}`));
    const remote = await createRemote({
      command: process.execPath,
      args: [REMOTE],
      era: { pin: "2026-07-28" },
      into: app,
      tool: (tool) => {
        if (tool.name === "secret") throw new Error("no guard for you");
        return undefined;
      },
      resource: (item) => {
        if ("uriTemplate" in item && item.uriTemplate === "vault://{id}") throw new Error("no guard for you");
        return undefined;
      },
    });
    open.push(remote);
    expect(warnings.join("\n")).toMatch(/tool secret left out/);
    expect(warnings.join("\n")).toMatch(/template vault:\/\/\{id\} left out/);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const client = new Client({ name: "c", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    open.push(client);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["add", "die"]);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((item) => item.uriTemplate);
    expect(templates).toEqual(["item://{id}"]);
  });
});
