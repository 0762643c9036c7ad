import type { RequestContext } from "../context/context.js";
import type { MaybePromise } from "../wire/maybe.js";

// The `ui` option of a tool (MCP Apps, io.modelcontextprotocol/ui, SEP-1865); registry/apps.ts checks and serves it.

/** The MCP Apps extension's id in `capabilities.extensions`. */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App's HTML. */
export const UI_MIME_TYPE = "text/html;profile=mcp-app";

/** Origins an app's page may reach, each mapped by the host to a CSP directive (`https://*.example.com` allowed). */
export interface UiCsp {
  /** fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: readonly string[];
  /** Images, scripts, styles, fonts, media. */
  resourceDomains?: readonly string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: readonly string[];
  /** `base-uri`. */
  baseUriDomains?: readonly string[];
}

/** Browser capabilities the app asks the host for (each `{}` when asked). */
export interface UiPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/**
 * A tool's MCP App: the HTML the host renders for it (a `ui://` resource the option registers) and the tool's link.
 * Tools that give the same `uri` share one app (same `html` and metadata); one with a `uri` and no `html` only links.
 * @example
 * ```ts source="examples/registry.ts#ToolUi"
 * server.tool({
 *   name: "chart",
 *   description: "Chart",
 *   ui: { html: CHART_HTML, csp: { resourceDomains: ["https://cdn.example.com"] } },
 *   handler,
 * });
 * ```
 */
export interface ToolUi {
  /** The page: HTML text, or a function that makes it on each read. */
  html?: string | ((ctx: RequestContext) => MaybePromise<string>);
  /** The resource's URI (default `ui://<tool name>/app.html`). */
  uri?: `ui://${string}`;
  /** The resource's name in `resources/list` (default the URI). */
  name?: string;
  /** The resource's description. */
  description?: string;
  /** What the host's Content Security Policy lets the page reach (nothing when omitted). */
  csp?: UiCsp;
  /** Browser permissions the page asks for. */
  permissions?: UiPermissions;
  /** A dedicated sandbox origin (host-specific format). */
  domain?: string;
  /** Whether the page wants the host's border and background. */
  prefersBorder?: boolean;
  /** Who may call the tool: the model, the app, or both (default both). */
  visibility?: readonly ("model" | "app")[];
}
