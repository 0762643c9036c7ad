import { describe, expect, it } from "vitest";
import type { AuthInfo, RequestContext } from "../context/context.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import type { ToolUi } from "./app-options.js";

const MIME = "text/html;profile=mcp-app";
const PAGE = "<!doctype html><title>chart</title><p>chart</p>";
const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: ["read"] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

function appServer() {
  const s = createServer({ name: "apps", version: "1" });
  const chart: ToolUi = {
    html: PAGE,
    uri: "ui://charts/view.html",
    csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example.com"] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  };
  s.tool({ name: "chart", description: "Chart", ui: chart, handler: () => "drawn" });
  s.tool({ name: "refresh", description: "Refresh", ui: { ...chart, visibility: ["app"] }, handler: () => "ok" });
  s.tool({
    name: "secret",
    description: "Secret",
    guard: isAdmin,
    ui: { html: () => "<p>secret</p>" },
    handler: () => 1,
  });
  s.tool({ name: "plain", description: "Plain", handler: () => 1 });
  return s;
}

const chartMeta = {
  ui: {
    csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example.com"] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  },
};

describe.each(["2025-11-25", "2026-07-28"] as const)("MCP Apps in %s", (protocolVersion) => {
  it("declares the extension, lists and serves the ui:// resource, and links it from the tools", async () => {
    const client = await createTestClient(appServer(), { protocolVersion, auth: admin });
    const capabilities = client.serverResult.capabilities as Record<string, Record<string, unknown>>;
    expect(capabilities.extensions?.["io.modelcontextprotocol/ui"]).toEqual({ mimeTypes: [MIME] });
    const tools = await client.listTools();
    const meta = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta]));
    expect(meta.chart).toEqual({
      ui: { resourceUri: "ui://charts/view.html" },
      "ui/resourceUri": "ui://charts/view.html",
    });
    expect(meta.refresh).toEqual({
      ui: { resourceUri: "ui://charts/view.html", visibility: ["app"] },
      "ui/resourceUri": "ui://charts/view.html",
    });
    expect(meta.secret).toEqual({
      ui: { resourceUri: "ui://secret/app.html" },
      "ui/resourceUri": "ui://secret/app.html",
    });
    expect(meta.plain).toBeUndefined();
    // Two tools, one app: listed once.
    expect(await client.listResources()).toEqual([
      { uri: "ui://charts/view.html", name: "ui://charts/view.html", mimeType: MIME, _meta: chartMeta },
      { uri: "ui://secret/app.html", name: "ui://secret/app.html", mimeType: MIME },
    ]);
    const read = await client.readResource("ui://charts/view.html");
    expect(read.contents).toEqual([{ uri: "ui://charts/view.html", mimeType: MIME, text: PAGE, _meta: chartMeta }]);
    const made = await client.readResource("ui://secret/app.html");
    expect(made.contents).toEqual([{ uri: "ui://secret/app.html", mimeType: MIME, text: "<p>secret</p>" }]);
  });

  it("an app whose every tool is hidden from a caller answers exactly as a resource that does not exist", async () => {
    const client = await createTestClient(appServer(), { protocolVersion, auth: reader });
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual(["ui://charts/view.html"]);
    const hidden = await rpcError(client.readResource("ui://secret/app.html"));
    const missing = await rpcError(client.readResource("ui://nothing/app.html"));
    expect({ code: hidden.code, message: hidden.message.replace("secret", "X"), data: hidden.data }).toEqual({
      code: missing.code,
      message: missing.message.replace("nothing", "X"),
      data: JSON.parse(JSON.stringify(missing.data ?? null).replaceAll("nothing", "secret")) ?? undefined,
    });
  });

  it("a disabled tool hides its app; removing the last tool that links it removes the app and the extension", async () => {
    const s = createServer({ name: "apps", version: "1" });
    const handle = s.tool({ name: "only", description: "Only", ui: { html: PAGE }, handler: () => 1 });
    const client = await createTestClient(s, { protocolVersion });
    handle.disable();
    await rpcError(client.readResource("ui://only/app.html"));
    handle.enable();
    expect((await client.readResource("ui://only/app.html")).contents).toHaveLength(1);
    handle.remove();
    expect(s.registered("resource", "ui://only/app.html")).toBeUndefined();
    expect(s.capabilities().extensions).toBeUndefined();
  });
});

describe("MCP Apps definitions", () => {
  const tool = (ui: unknown) => () =>
    createServer({ name: "x", version: "1" }).tool({ name: "t", description: "T", ui: ui as ToolUi, handler: () => 1 });

  it.each([
    [{ html: PAGE, uri: "https://example.com/app.html" }, 'starts with "ui://"'],
    [{ html: PAGE, csp: { connectDomains: ["api.example.com"] } }, "is not an origin"],
    [{ html: PAGE, csp: { connectDomains: ["https://api.example.com/path"] } }, "is not an origin"],
    [{ html: PAGE, csp: { resourceDomains: ["https://example.com/"] } }, "is not an origin"],
    [{ html: PAGE, csp: { scriptDomains: ["https://example.com"] } }, 'unknown field "scriptDomains"'],
    [{ html: PAGE, permissions: { camera: true } }, "permissions.camera must be {}"],
    [{ html: PAGE, visibility: [] }, "visibility must list"],
    [{ html: PAGE, visibility: ["user"] }, "visibility must list"],
    [{ html: 42 }, "html must be"],
    [{}, "needs html"],
    [{ html: PAGE, style: "x" }, 'unknown field "style"'],
  ])("rejects %j", (ui, message) => {
    expect(definitionError(tool(ui)).message).toContain(message);
  });

  it("accepts origins with ports and wildcard subdomains, and a link-only tool", () => {
    const s = createServer({ name: "x", version: "1" });
    s.tool({
      name: "a",
      description: "A",
      ui: { html: PAGE, uri: "ui://a/v", csp: { connectDomains: ["http://localhost:3000", "wss://*.example.com"] } },
      handler: () => 1,
    });
    s.tool({ name: "b", description: "B", ui: { uri: "ui://a/v", visibility: ["app"] }, handler: () => 1 });
    expect(s.registered("resource", "ui://a/v")?.describe()).toMatchObject({ mimeType: MIME });
  });

  it("refuses a second page under one app URI, and an app URI that is already a resource", () => {
    const s = createServer({ name: "x", version: "1" });
    s.tool({ name: "a", description: "A", ui: { html: PAGE, uri: "ui://a/v" }, handler: () => 1 });
    expect(
      definitionError(() =>
        s.tool({ name: "b", description: "B", ui: { html: "<p>other</p>", uri: "ui://a/v" }, handler: () => 1 }),
      ).message,
    ).toContain("another tool's app");
    s.resource({ uri: "ui://taken/v", handler: () => "x" });
    expect(
      definitionError(() =>
        s.tool({ name: "c", description: "C", ui: { html: PAGE, uri: "ui://taken/v" }, handler: () => 1 }),
      ).message,
    ).toContain("already a resource");
    expect(s.registered("tool", "b")).toBeUndefined();
    expect(s.registered("tool", "c")).toBeUndefined();
  });

  it("refuses an app URI a mounted module serves, leaving no tool nor extension behind", () => {
    const module = createServer({ name: "docs", version: "1" });
    module.resource({ uri: "ui://docs/app.html", handler: () => "theirs" });
    const s = createServer({ name: "x", version: "1" }).mount("docs", module);
    expect(
      definitionError(() =>
        s.tool({ name: "mine", description: "M", ui: { html: PAGE, uri: "ui://docs/app.html" }, handler: () => 1 }),
      ).message,
    ).toContain('server "docs" (mounted at "docs") serves it already');
    expect(s.registered("tool", "mine")).toBeUndefined();
    expect(s.capabilities().extensions).toBeUndefined();
  });
});

describe("MCP Apps and a tool's handle", () => {
  it("update() keeps the link through new _meta, and refuses a new ui", () => {
    const s = createServer({ name: "x", version: "1" });
    const handle = s.tool({ name: "a", description: "A", ui: { html: PAGE }, handler: () => 1 });
    handle.update({ _meta: { mine: true }, description: "A, again" });
    expect(handle.describe()._meta).toEqual({
      mine: true,
      ui: { resourceUri: "ui://a/app.html" },
      "ui/resourceUri": "ui://a/app.html",
    });
    expect(definitionError(() => handle.update({ ui: { html: "<p>new</p>" } })).message).toContain(
      "fixed at registration",
    );
  });
});

describe("MCP Apps in a mounted module", () => {
  it("the parent declares the extension and serves the module's app to who sees its tool", async () => {
    const module = createServer({ name: "charts", version: "1" });
    module.tool({ name: "chart", description: "Chart", guard: isAdmin, ui: { html: PAGE }, handler: () => 1 });
    const app = createServer({ name: "app", version: "1" }).mount("charts", module);
    expect(app.capabilities().extensions).toEqual({ "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } });
    const asAdmin = await createTestClient(app, { protocolVersion: "2026-07-28", auth: admin });
    const [tool] = await asAdmin.listTools();
    expect(tool).toMatchObject({ name: "charts.chart", _meta: { ui: { resourceUri: "ui://chart/app.html" } } });
    expect((await asAdmin.readResource("ui://chart/app.html")).contents).toMatchObject([{ text: PAGE }]);
    const asReader = await createTestClient(app, { protocolVersion: "2026-07-28", auth: reader });
    expect((await rpcError(asReader.readResource("ui://chart/app.html"))).message).toBe(
      "Resource not found: ui://chart/app.html",
    );
  });
});

describe("MCP Apps with tasks", () => {
  it("server/discover keeps the apps extension beside the tasks one", async () => {
    const s = createServer({ name: "x", version: "1" });
    s.tool({ name: "a", description: "A", ui: { html: PAGE }, task: "optional", handler: () => 1 } as never);
    const client = await createTestClient(s, { protocolVersion: "2026-07-28" });
    const extensions = (client.serverResult.capabilities as Record<string, Record<string, unknown>>).extensions;
    expect(Object.keys(extensions ?? {}).sort()).toEqual([
      "io.modelcontextprotocol/tasks",
      "io.modelcontextprotocol/ui",
    ]);
  });
});

describe("an app's html function", () => {
  it("one that throws or makes no text is an internal error, logged for the author, never a page", async () => {
    const logged: string[] = [];
    const s = createServer({ name: "x", version: "1", logger: (entry) => logged.push(entry.message) });
    const make = (name: string, html: unknown) =>
      s.tool({ name, description: name, ui: { html: html as () => string }, handler: () => 1 });
    make("throws", () => {
      throw new Error("boom");
    });
    make("number", () => 42);
    make("nothing", async () => undefined);
    make("object", () => ({ contents: [{ uri: "file:///etc/passwd", text: "x" }] }));
    const client = await createTestClient(s, { protocolVersion: "2026-07-28" });
    for (const name of ["throws", "number", "nothing", "object"]) {
      const error = await rpcError(client.readResource(`ui://${name}/app.html`));
      expect({ code: error.code, message: error.message }).toEqual({ code: -32603, message: "Internal error" });
    }
    expect(logged.join("\n")).toContain('the ui html function of app "ui://nothing/app.html" returned undefined');
    expect(await client.listResources()).toHaveLength(4);
  });
});
