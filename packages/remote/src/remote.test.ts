import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type Server } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { until } from "../../../scripts/wait.js";
import { createRemote, type Remote, type RemoteOptions } from "./index.js";

// The gateway (a Toolsmith server with a remote mounted under "r") served over HTTP and driven by the official
// client; the remote is a real peer: the official SDK v2 on stdio, or a Toolsmith server over HTTP.

const SDK_REMOTE = fileURLToPath(new URL("./sdk-remote.test-util.mjs", import.meta.url));

type Era = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Era][] = [
  ["handshake era", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

function toolsmithRemote(): Server {
  const server = createServer({ name: "toolsmith-remote", version: "1.0.0" });
  server.tool({
    name: "add",
    description: "Add two numbers",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => String(a + b),
  });
  server.tool({
    name: "point",
    description: "A point",
    input: { x: z.number() },
    output: z.object({ x: z.number(), y: z.number() }),
    handler: ({ x }) => ({ x, y: 0 }),
  });
  server.tool({
    name: "fail",
    description: "Always fails",
    handler: () => {
      throw new Error("it broke");
    },
  });
  server.tool({
    name: "big",
    description: "A long text",
    input: { bytes: z.number() },
    handler: ({ bytes }) => "x".repeat(bytes),
  });
  server.prompt({
    name: "greet",
    description: "Greets someone",
    args: { name: z.string() },
    handler: ({ name }) => `Hello, ${name}`,
  });
  server.resource({ uri: "info://about", name: "about", mimeType: "text/plain", handler: () => "about the remote" });
  server.resource({
    uriTemplate: "item://{id}",
    name: "item",
    mimeType: "text/plain",
    complete: { id: (value) => ({ values: ["alpha", "beta"].filter((id) => id.startsWith(value)) }) },
    handler: ({ id }) => `item ${id}`,
  });
  return server;
}

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function gateway(options: RemoteOptions, era: Era): Promise<{ client: Client; remote: Remote; app: Server }> {
  const remote = await createRemote(options);
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.tool({ name: "local", description: "A local tool", handler: () => "here" });
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: era } });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  open.push(client);
  return { client, remote, app };
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text ?? "") as string;
}

async function listedNames(client: Client): Promise<string[]> {
  return (await client.listTools(undefined, { cacheMode: "refresh" })).tools.map((tool) => tool.name).sort();
}

async function sdkOverHttp(args: string[]): Promise<RemoteOptions> {
  const child = spawn(process.execPath, [SDK_REMOTE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  open.unshift({
    close: () => {
      child.kill();
      return exited;
    },
  });
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return { url: line };
}

interface Target {
  options(): Promise<RemoteOptions>;
}

const targets: [string, Target][] = [
  ["official SDK v2 on stdio", { options: async () => ({ command: process.execPath, args: [SDK_REMOTE] }) }],
  ["official SDK v2 over HTTP", { options: () => sdkOverHttp([]) }],
  // The handshake era with sessions (a GET stream, a DELETE at the end), as the SDK's docs wire it.
  ["official SDK v2 over HTTP, with sessions", { options: () => sdkOverHttp(["--stateful"]) }],
  [
    "Toolsmith over HTTP",
    {
      options: async () => {
        const http = await listen(toolsmithRemote(), { port: 0, log: null });
        open.unshift(http);
        return { url: http.url };
      },
    },
  ],
];

describe.each(targets)("a remote: %s", (_, target) => {
  describe.each(ERAS)("remote and gateway in the %s", (_, era) => {
    it("lists the remote's tools under the prefix and forwards calls, results as they came", async () => {
      const { client } = await gateway({ ...(await target.options()), era }, era);
      expect(await listedNames(client)).toEqual(["local", "r.add", "r.big", "r.fail", "r.point"]);
      const listed = (await client.listTools()).tools.find((tool) => tool.name === "r.add");
      expect(listed?.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" } } });

      expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 2, b: 3 } }))).toBe("5");
      const point = await client.callTool({ name: "r.point", arguments: { x: 4 } });
      expect(point.structuredContent).toEqual({ x: 4, y: 0 });
      const failed = await client.callTool({ name: "r.fail", arguments: {} });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toContain("it broke");
      expect(textOf(await client.callTool({ name: "local", arguments: {} }))).toBe("here");
    });

    it("forwards prompts, resources, templates and completions", async () => {
      const { client } = await gateway({ ...(await target.options()), era }, era);
      const prompts = (await client.listPrompts(undefined, { cacheMode: "refresh" })).prompts;
      expect(prompts.map((prompt) => prompt.name)).toEqual(["r.greet"]);
      expect(prompts[0]?.arguments).toEqual([expect.objectContaining({ name: "name", required: true })]);
      const got = await client.getPrompt({ name: "r.greet", arguments: { name: "Ada" } });
      expect(JSON.stringify(got.messages)).toContain("Hello, Ada");

      const resources = (await client.listResources(undefined, { cacheMode: "refresh" })).resources;
      expect(resources.map((resource) => resource.uri)).toContain("info://about");
      const about = await client.readResource({ uri: "info://about" }, { cacheMode: "bypass" });
      expect(about.contents[0]).toMatchObject({ uri: "info://about", text: "about the remote" });
      const templates = (await client.listResourceTemplates(undefined, { cacheMode: "refresh" })).resourceTemplates;
      expect(templates.map((template) => template.uriTemplate)).toEqual(["item://{id}"]);
      const item = await client.readResource({ uri: "item://7" }, { cacheMode: "bypass" });
      expect(item.contents[0]).toMatchObject({ uri: "item://7", text: "item 7" });
      const completed = await client.complete({
        ref: { type: "ref/resource", uri: "item://{id}" },
        argument: { name: "id", value: "al" },
      });
      expect(completed.completion.values).toEqual(["alpha"]);
    });

    it("refuses an answer over maxResultBytes with an isError result, and serves on", async () => {
      const { client } = await gateway({ ...(await target.options()), era, maxResultBytes: 10_000 }, era);
      const big = await client.callTool({ name: "r.big", arguments: { bytes: 20_000 } });
      expect(big.isError).toBe(true);
      expect(textOf(big)).toMatch(/answered with more than 10000 bytes/);
      expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 1 } }))).toBe("2");
    });

    it("a guard on the parent hides a remote tool: listed and called exactly as a missing one", async () => {
      const options = await target.options();
      const { client } = await gateway(
        { ...options, era, tool: (tool) => (tool.name === "add" ? { guard: () => false } : undefined) },
        era,
      );
      expect(await listedNames(client)).toEqual(["local", "r.big", "r.fail", "r.point"]);
      const hidden = await client.callTool({ name: "r.add", arguments: { a: 1, b: 2 } }).then(
        (result) => ({ result }),
        (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
      );
      const missing = await client.callTool({ name: "r.nothing", arguments: { a: 1, b: 2 } }).then(
        (result) => ({ result }),
        (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
      );
      expect(JSON.stringify(hidden).replaceAll("r.add", "NAME")).toBe(
        JSON.stringify(missing).replaceAll("r.nothing", "NAME"),
      );
    });
  });
});

describe.each(ERAS)("a remote that goes away, in the %s", (_, era) => {
  it("answers a clear isError while down, the rest lives on, and reconnects once it is back", async () => {
    let http = await listen(toolsmithRemote(), { port: 0, log: null });
    const port = Number(new URL(http.url).port);
    const { client } = await gateway({ url: http.url, era, backoff: { initialMs: 0 } }, era);
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 2 } }))).toBe("3");

    await http.close();
    const down = await client.callTool({ name: "r.add", arguments: { a: 1, b: 2 } });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toMatch(/^remote http:\/\/127\.0\.0\.1:\d+\/mcp (failed|is unreachable)/);
    expect(textOf(await client.callTool({ name: "local", arguments: {} }))).toBe("here");

    http = await listen(toolsmithRemote(), { port, log: null });
    open.unshift(http);
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 2, b: 2 } }))).toBe("4");
  });

  it("the parent's middleware runs around a remote tool's call and a remote tool's scopes are enforced", async () => {
    const http = await listen(toolsmithRemote(), { port: 0, log: null });
    open.unshift(http);
    const { client, app } = await gateway(
      { url: http.url, era, tool: (tool) => (tool.name === "big" ? { scopes: ["admin"] } : undefined) },
      era,
    );
    const logged: string[] = [];
    app.setLogger((entry) => logged.push(entry.message));
    const seen: string[] = [];
    app.use((operation, next) => {
      if (operation.method === "tools/call") seen.push(`${operation.name} ${JSON.stringify(operation.arguments)}`);
      return next();
    });
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 2 } }))).toBe("3");
    expect(seen).toEqual(['r.add {"a":1,"b":2}']);
    await expect(client.callTool({ name: "r.big", arguments: { bytes: 1 } })).rejects.toMatchObject({
      name: "InsufficientScopeError",
      requiredScope: "admin",
    });
    expect(await listedNames(client)).toContain("r.big");
    expect(logged.join("\n")).toMatch(/"r.big" needs the scopes admin/);
  });

  it("a remote down from the start lists nothing, then its tools once it is up", async () => {
    const probe = await listen(toolsmithRemote(), { port: 0, log: null });
    const url = probe.url;
    await probe.close();
    const { client } = await gateway({ url, era, backoff: { initialMs: 0 } }, era);
    expect(await listedNames(client)).toEqual(["local"]);
    const http = await listen(toolsmithRemote(), { port: Number(new URL(url).port), log: null });
    open.unshift(http);
    expect(await listedNames(client)).toEqual(["local", "r.add", "r.big", "r.fail", "r.point"]);
  });
});

describe("what travels with a call (Toolsmith remote over HTTP)", () => {
  function remoteWith(seen: { aborted?: Promise<void> }): Server {
    const server = toolsmithRemote();
    server.tool({
      name: "steps",
      description: "Reports progress",
      handler: (_, ctx) => {
        ctx.progress(1, 2, "half");
        ctx.progress(2, 2, "done");
        return "stepped";
      },
    });
    server.tool({
      name: "hang",
      description: "Answers when cancelled",
      handler: (_, ctx) => {
        seen.aborted = new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        return seen.aborted.then(() => "cancelled");
      },
    });
    return server;
  }

  it.each(ERAS)("relays the remote's progress to the caller, in the %s", async (_, era) => {
    const http = await listen(remoteWith({}), { port: 0, log: null });
    open.unshift(http);
    const { client } = await gateway({ url: http.url, era }, era);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "r.steps", arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toBe("stepped");
    expect(progress).toEqual([1, 2]);
  });

  it.each(ERAS)("a remote that hangs is cut at timeoutMs with an isError, in the %s", async (_, era) => {
    const seen: { aborted?: Promise<void> } = {};
    const http = await listen(remoteWith(seen), { port: 0, log: null });
    open.unshift(http);
    const { client } = await gateway({ url: http.url, era, timeoutMs: 300 }, era);
    const result = await client.callTool({ name: "r.hang", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/did not answer within 300 ms/);
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 1 } }))).toBe("2");
  });

  it.each(ERAS)("the caller's cancellation reaches the remote, in the %s", async (_, era) => {
    const seen: { aborted?: Promise<void> } = {};
    const http = await listen(remoteWith(seen), { port: 0, log: null });
    open.unshift(http);
    const { client } = await gateway({ url: http.url, era }, era);
    const controller = new AbortController();
    const call = client.callTool({ name: "r.hang", arguments: {} }, { signal: controller.signal });
    await until(() => seen.aborted !== undefined, "the remote running hang");
    controller.abort();
    await expect(call).rejects.toThrow();
    await seen.aborted;
  });

  it("mirrors a remote tool's x-mcp-header argument (SEP-2243) from the first call, with no list before it", async () => {
    const remoteServer = toolsmithRemote();
    remoteServer.tool({
      name: "route",
      description: "A header-mirrored argument",
      input: { region: z.string().meta({ "x-mcp-header": "Region" }) },
      handler: ({ region }) => `routed to ${region}`,
    });
    const seen: string[] = [];
    remoteServer.use((operation, next) => {
      seen.push(operation.method);
      return next();
    });
    const http = await listen(remoteServer, { port: 0, log: null });
    open.unshift(http);
    const era = { pin: "2026-07-28" } as const;
    const { client } = await gateway({ url: http.url, era }, era);
    seen.length = 0;
    const result = await client.callTool({ name: "r.route", arguments: { region: "eu-west" } });
    expect(textOf(result)).toBe("routed to eu-west");
    // Without the header the remote refuses the call at its door; the client then lists every tool and calls again.
    expect(seen).toEqual(["tools/call"]);
  });

  it.each(ERAS)(
    "sends a tools/call straight on the link's session, the rest through the client, in the %s",
    async (_, era) => {
      const remoteServer = toolsmithRemote();
      const seen: string[] = [];
      remoteServer.use((operation, next) => {
        seen.push(
          `${operation.method} ${String(operation.ctx.requestId).startsWith("toolsmith-") ? "straight" : "client"}`,
        );
        return next();
      });
      const http = await listen(remoteServer, { port: 0, log: null });
      open.unshift(http);
      const { client } = await gateway({ url: http.url, era }, era);
      seen.length = 0;
      expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 2, b: 3 } }))).toBe("5");
      expect(textOf(await client.readResource({ uri: "info://about" }).then((r) => ({ content: r.contents })))).toBe(
        "about the remote",
      );
      expect(seen).toEqual(["tools/call straight", "resources/read client"]);
    },
  );

  it("a remote behind a same-origin redirect is called through the client, which follows it", async () => {
    const remoteServer = toolsmithRemote();
    const http = await listen(remoteServer, { port: 0, log: null });
    open.unshift(http);
    const target = new URL(http.url);
    // A front that moved the endpoint: /old answers 307 to the endpoint, the rest is passed on.
    const front = createHttpServer((req, res) => {
      if (req.url === "/old") {
        res.writeHead(307, { location: target.pathname }).end();
        return;
      }
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    open.unshift({ close: () => new Promise<void>((resolve) => front.close(() => resolve())) });
    const url = `http://127.0.0.1:${(front.address() as { port: number }).port}/old`;
    const era = "legacy";
    const { client } = await gateway({ url, era }, era);
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 1 } }))).toBe("2");
  });

  it("the remote's tool list change is listed again and announced by the gateway", async () => {
    const remoteServer = toolsmithRemote();
    const http = await listen(remoteServer, { port: 0, log: null });
    open.unshift(http);
    const { client } = await gateway({ url: http.url, era: "legacy" }, "legacy");
    const announced = new Promise<void>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
    );
    remoteServer.tool({ name: "later", description: "Added later", handler: () => "late" });
    await announced;
    await until(async () => (await listedNames(client)).includes("r.later"), "r.later listed");
    expect(textOf(await client.callTool({ name: "r.later", arguments: {} }))).toBe("late");
  });
});

describe("a remote that misbehaves", () => {
  it.each(ERAS)(
    "one that answers garbage on stdio is unreachable, cut at timeoutMs, and the gateway serves on (%s)",
    async (_, era) => {
      const garbage =
        "process.stdin.on('data', () => process.stdout.write('not json at all\\n{\\\"jsonrpc\\\":1}\\n'))";
      const { client, remote } = await gateway(
        { command: process.execPath, args: ["-e", garbage], era, timeoutMs: 500, backoff: { initialMs: 0 } },
        era,
      );
      expect(await listedNames(client)).toEqual(["local"]);
      await expect(remote.refresh()).rejects.toThrow(/^remote command ".*" is unreachable/);
      expect(textOf(await client.callTool({ name: "local", arguments: {} }))).toBe("here");
    },
  );

  it("a 50 MB answer is refused with an isError under the default bound, and the gateway serves on", async () => {
    const http = await listen(toolsmithRemote(), { port: 0, log: null });
    open.unshift(http);
    const { client } = await gateway({ url: http.url, era: { pin: "2026-07-28" } }, { pin: "2026-07-28" });
    const big = await client.callTool({ name: "r.big", arguments: { bytes: 50 * 1024 * 1024 } });
    expect(big.isError).toBe(true);
    expect(textOf(big)).toMatch(/answered with more than 10485760 bytes/);
    expect(textOf(await client.callTool({ name: "r.add", arguments: { a: 1, b: 1 } }))).toBe("2");
  });
});
