import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  Client,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";

// Build first (npx -y pnpm@12.4.2 run build). The app the server serves, rendered in headless Chromium (Debian's
// package; .ci/run installs it): the official AppBridge is the host, the official client its link to the server.
const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const MIME = "text/html;profile=mcp-app";

let browser: Browser | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  // Chromium's sandbox refuses to run as root; any other user keeps it.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: process.getuid?.() !== 0,
  });
});

afterAll(async () => {
  await browser?.close();
});

/** The host's Content-Security-Policy for an app, from its `_meta.ui.csp` (nothing beyond its own inline code when empty). */
function policyOf(csp: Record<string, string[] | undefined> = {}): string {
  const resources = (csp.resourceDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: ${resources}`,
    `font-src ${resources || "'none'"}`,
    `media-src data: ${resources}`,
    `connect-src ${csp.connectDomains?.join(" ") || "'none'"}`,
    `frame-src ${csp.frameDomains?.join(" ") || "'none'"}`,
    `base-uri ${csp.baseUriDomains?.join(" ") || "'self'"}`,
  ].join("; ");
}

/** The app's HTML with the host's policy first in its head, as a host serving it in a sandboxed frame applies it. */
function withPolicy(html: string, csp: Record<string, string[] | undefined> | undefined): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policyOf(csp)}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

/** The host page's side of the frame's postMessage channel, as an MCP transport for the AppBridge (in this process). */
class FrameTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(private readonly page: Page) {}
  async start(): Promise<void> {
    await this.page.exposeBinding("toHost", (_source, message: JSONRPCMessage) => this.onmessage?.(message));
    await this.page.evaluate(() =>
      window.addEventListener("message", (event) => {
        const frame = document.getElementById("app") as HTMLIFrameElement;
        if (event.source === frame.contentWindow)
          (window as unknown as { toHost(m: unknown): void }).toHost(event.data);
      }),
    );
  }
  async send(message: JSONRPCMessage): Promise<void> {
    await this.page.evaluate((one) => {
      (document.getElementById("app") as HTMLIFrameElement).contentWindow?.postMessage(one, "*");
    }, message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

/** The official client, connected to the example over stdio or (`--http`) Streamable HTTP. */
async function connect(over: "stdio" | "http", mode: "legacy" | { pin: "2026-07-28" }) {
  const client = new Client({ name: "poll-host", version: "1.0.0" }, { versionNegotiation: { mode } });
  if (over === "stdio") {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    return { client, server: undefined };
  }
  const { url, child } = await spawnHttp([serverPath, "--http"]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, server: child };
}

describe("the poll's MCP App, rendered in headless Chromium from the resource the server serves", () => {
  for (const over of ["stdio", "http"] as const)
    for (const mode of ["legacy", { pin: "2026-07-28" }] as const) {
      it(`draws the tool result and votes through the host (${over}, ${typeof mode === "string" ? mode : mode.pin})`, async () => {
        const { client, server } = await connect(over, mode);
        const page = await (browser as Browser).newPage();
        try {
          expect(client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/ui"]).toEqual({
            mimeTypes: [MIME],
          });
          const tools = (await client.listTools()).tools;
          const show = tools.find((one) => one.name === "show_poll");
          const uri = (show?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
          expect(uri).toBe("ui://poll/view.html");
          expect(tools.find((one) => one.name === "vote")?._meta?.ui).toEqual({
            resourceUri: uri,
            visibility: ["app"],
          });
          const [content] = (await client.readResource({ uri: uri as string })).contents;
          expect(content).toMatchObject({ uri, mimeType: MIME, _meta: { ui: { prefersBorder: true } } });
          const html = (content as { text: string }).text;
          const csp = (content as { _meta?: { ui?: { csp?: Record<string, string[]> } } })._meta?.ui?.csp;

          // The host: a page with a sandboxed frame (scripts, no same origin), the AppBridge answering ui/initialize
          // and proxying the app's tools/call to the server through the client.
          await page.setContent(
            '<!doctype html><iframe id="app" sandbox="allow-scripts" width="600" height="300"></iframe>',
          );
          const bridge = new AppBridge(client, { name: "poll-host", version: "1.0.0" }, { serverTools: {} });
          const initialized = new Promise<void>((resolve) => {
            bridge.oninitialized = () => resolve();
          });
          await bridge.connect(new FrameTransport(page));
          await page.evaluate(
            (srcdoc) => {
              (document.getElementById("app") as HTMLIFrameElement).srcdoc = srcdoc;
            },
            withPolicy(html, csp),
          );
          await initialized;
          expect(bridge.getAppVersion()).toEqual({ name: "poll-view", version: "1.0.0" });

          await bridge.sendToolResult(await client.callTool({ name: "show_poll", arguments: {} }));
          const app = page.frameLocator("#app");
          await app.locator("h1", { hasText: "Which transport?" }).waitFor();
          expect(await app.locator(".row .label").allTextContents()).toEqual(["stdio: 0", "HTTP: 0"]);

          // A click in the app is a tools/call the host proxies; the server counts it and the app draws its answer.
          await app.locator('[data-option="HTTP"] button').click();
          await app.locator("#total", { hasText: "1 votes" }).waitFor();
          expect(await app.locator(".row .label").allTextContents()).toEqual(["stdio: 0", "HTTP: 1"]);
          expect((await client.callTool({ name: "show_poll", arguments: {} })).structuredContent).toEqual({
            question: "Which transport?",
            options: [
              { label: "stdio", votes: 0 },
              { label: "HTTP", votes: 1 },
            ],
          });

          // The policy from _meta.ui.csp holds in the frame: no connectDomains, so no fetch leaves it.
          const frame = page.frames().find((one) => one !== page.mainFrame());
          const violated = await frame?.evaluate(
            () =>
              new Promise<string>((resolve) => {
                document.addEventListener("securitypolicyviolation", (event) => resolve(event.effectiveDirective));
                fetch("https://example.com/").catch(() => {});
              }),
          );
          expect(violated).toBe("connect-src");
          await bridge.close();
        } finally {
          await page.close();
          await client.close();
          if (server) await end(server as ChildProcess);
        }
      });
    }
});
