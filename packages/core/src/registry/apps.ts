import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import { type ToolUi, UI_MIME_TYPE } from "./app-options.js";
import type { StaticResourceDefinition, ToolDefinition } from "./definitions.js";
import { allows, type Guard } from "./guards.js";
import type { Registered } from "./table.js";

// MCP Apps (io.modelcontextprotocol/ui, SEP-1865): a tool's `ui` option becomes a ui:// resource and a link to it.

const CSP_KEYS = new Set(["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]);
const PERMISSIONS = new Set(["camera", "microphone", "geolocation", "clipboardWrite"]);
const UI_KEYS = new Set([
  "html",
  "uri",
  "name",
  "description",
  "csp",
  "permissions",
  "domain",
  "prefersBorder",
  "visibility",
]);
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[^/?#@\s]+$/i;

function fail(tool: string, what: string): never {
  throw new DefinitionError(`Tool "${tool}" ui ${what}`);
}

// An origin as CSP source lists take it: scheme, host (a leading "*." allowed) and port, nothing more.
function checkOrigin(tool: string, key: string, value: unknown): string {
  const text = typeof value === "string" ? value : "";
  let parsed: URL | undefined;
  try {
    parsed = ORIGIN.test(text) ? new URL(text.replace("://*.", "://wildcard.")) : undefined;
  } catch {}
  if (!parsed || `${parsed.protocol}//${parsed.host}` !== text.replace("://*.", "://wildcard.").toLowerCase()) {
    fail(tool, `csp.${key} ${JSON.stringify(value)} is not an origin: write one like "https://api.example.com"`);
  }
  return text;
}

/** What a tool's `ui` option says, checked: the link, and the resource's wire metadata. */
export interface CheckedUi {
  uri: string;
  html: ToolUi["html"];
  name: string | undefined;
  description: string | undefined;
  /** The resource's `_meta.ui` (csp, permissions, domain, prefersBorder), undefined when empty. */
  meta: Record<string, unknown> | undefined;
  visibility: readonly string[] | undefined;
}

/** A tool's `ui` option, checked at registration (DefinitionError on anything a host could not use). */
export function checkUi(tool: string, ui: unknown): CheckedUi {
  if (!isPlainObject(ui)) fail(tool, "must be an object like { html: '<!doctype html>…' }");
  for (const key of Object.keys(ui)) if (!UI_KEYS.has(key)) fail(tool, `has an unknown field "${key}"`);
  const { html, uri, name, description, csp, permissions, domain, prefersBorder, visibility } = ui;
  if (uri !== undefined && (typeof uri !== "string" || !/^ui:\/\/[^\s{}]+$/.test(uri))) {
    fail(tool, `uri ${JSON.stringify(uri)} is invalid: an app's URI starts with "ui://", like "ui://charts/view.html"`);
  }
  if (html !== undefined && typeof html !== "string" && typeof html !== "function") {
    fail(tool, "html must be the page's HTML text or a function that returns it");
  }
  if (html === undefined && uri === undefined) fail(tool, "needs html (its page), or the uri of another tool's app");
  for (const [key, value] of [
    ["name", name],
    ["description", description],
    ["domain", domain],
  ] as const) {
    if (value !== undefined && typeof value !== "string") fail(tool, `${key} must be a string`);
  }
  if (prefersBorder !== undefined && typeof prefersBorder !== "boolean") fail(tool, "prefersBorder must be a boolean");
  const meta: Record<string, unknown> = {};
  if (csp !== undefined) {
    if (!isPlainObject(csp)) fail(tool, "csp must be an object like { connectDomains: ['https://api.example.com'] }");
    const checked: Record<string, string[]> = {};
    for (const [key, list] of Object.entries(csp)) {
      if (!CSP_KEYS.has(key)) fail(tool, `csp has an unknown field "${key}" (${[...CSP_KEYS].join(", ")})`);
      if (!Array.isArray(list)) fail(tool, `csp.${key} must be an array of origins`);
      checked[key] = list.map((one) => checkOrigin(tool, key, one));
    }
    meta.csp = checked;
  }
  if (permissions !== undefined) {
    if (!isPlainObject(permissions)) fail(tool, "permissions must be an object like { camera: {} }");
    for (const [key, value] of Object.entries(permissions)) {
      if (!PERMISSIONS.has(key))
        fail(tool, `permissions has an unknown field "${key}" (${[...PERMISSIONS].join(", ")})`);
      if (!isPlainObject(value) || Object.keys(value).length > 0) fail(tool, `permissions.${key} must be {}`);
    }
    meta.permissions = structuredClone(permissions);
  }
  if (domain !== undefined) meta.domain = domain;
  if (prefersBorder !== undefined) meta.prefersBorder = prefersBorder;
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) ||
      visibility.length === 0 ||
      new Set(visibility).size !== visibility.length ||
      visibility.some((one) => one !== "model" && one !== "app"))
  ) {
    fail(tool, 'visibility must list "model", "app" or both, each once');
  }
  return {
    uri: (uri as string | undefined) ?? `ui://${tool}/app.html`,
    html: html as ToolUi["html"],
    name: name as string | undefined,
    description: description as string | undefined,
    meta: Object.keys(meta).length > 0 ? meta : undefined,
    visibility: visibility as string[] | undefined,
  };
}

/** The tool as listed: its `_meta.ui` links the app (and the older flat `ui/resourceUri` key, for older hosts). */
export function linkedTool(definition: ToolDefinition, ui: CheckedUi): ToolDefinition {
  const own = isPlainObject(definition._meta?.ui) ? definition._meta.ui : {};
  const link: Record<string, unknown> = { ...own, resourceUri: ui.uri };
  if (ui.visibility) link.visibility = [...ui.visibility];
  return { ...definition, _meta: { ...definition._meta, ui: link, "ui/resourceUri": ui.uri } };
}

/** A tool that links an app, and its guard as it is now. */
export interface Linker {
  readonly handle: Registered<ToolDefinition>;
  guard: Guard | undefined;
}

/** One ui:// URI's app: the tools that link it, and the resource once a tool gave its HTML. */
export interface AppRecord {
  readonly uri: string;
  readonly linkers: Linker[];
  source?: CheckedUi;
  resource?: Registered<StaticResourceDefinition>;
  /** The resource's guard: a caller sees the app while one of its enabled tools is theirs to see. */
  access?: Guard;
}

/** True when the app shows alike to every caller: an enabled tool linking it is unguarded, or none is guarded. */
export function callerFree(record: AppRecord): boolean {
  const { linkers } = record;
  return (
    linkers.some(({ handle, guard }) => guard === undefined && handle.enabled) ||
    linkers.every(({ guard }) => guard === undefined)
  );
}

/**
 * Who may hear of a change to the app: anyone once a tool linking it is unguarded, else whom one of their guards
 * allows (enabled or not, so a caller who just lost the app hears of it too).
 */
export function appAudience(linkers: readonly Linker[], report: (entry: LogEntry) => void): Guard | undefined {
  if (linkers.some(({ guard }) => guard === undefined)) return undefined;
  const guards = linkers.map(({ guard }) => guard);
  return (ctx) => guards.some((guard) => allows(guard, ctx, report));
}

/**
 * The app's resource: readable and listed for a caller who may see one of its tools (enabled, and its guard allows),
 * else answered as one that does not exist.
 */
export function appResource(
  record: AppRecord,
  ui: CheckedUi,
  report: (entry: LogEntry) => void,
): StaticResourceDefinition {
  const { uri, html, meta } = ui;
  const content = (text: string) => ({
    contents: [
      meta ? { uri, mimeType: UI_MIME_TYPE, text, _meta: { ui: meta } } : { uri, mimeType: UI_MIME_TYPE, text },
    ],
  });
  const make = html as (ctx: RequestContext) => MaybePromise<string>;
  record.access = (ctx) => record.linkers.some(({ handle, guard }) => handle.enabled && allows(guard, ctx, report));
  return {
    uri,
    name: ui.name ?? uri,
    ...(ui.description !== undefined ? { description: ui.description } : {}),
    mimeType: UI_MIME_TYPE,
    ...(meta ? { _meta: { ui: meta } } : {}),
    guard: record.access,
    handler: (ctx) => {
      if (typeof html === "string") return content(html);
      return andThen(make(ctx), (text: unknown) => {
        // Anything else would reach the host as a page it cannot render: the author's fault, told as one.
        if (typeof text !== "string") {
          throw new TypeError(`the ui html function of app "${uri}" returned ${typeof text}, not the page's HTML text`);
        }
        return content(text);
      });
    },
  };
}

/** Same page and metadata: a second tool may share the app. */
export function sameApp(a: CheckedUi, b: CheckedUi): boolean {
  return (
    a.html === b.html &&
    a.name === b.name &&
    a.description === b.description &&
    JSON.stringify(a.meta) === JSON.stringify(b.meta)
  );
}
