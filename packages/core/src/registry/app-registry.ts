import type { LogEntry } from "../context/logger.js";
import { DefinitionError } from "../wire/errors.js";
import {
  type AppRecord,
  appAudience,
  appResource,
  type CheckedUi,
  callerFree,
  checkUi,
  type Linker,
  linkedTool,
  sameApp,
} from "./apps.js";
import type { CompiledResource, CompiledTool } from "./compile.js";
import type { StaticResourceDefinition, ToolDefinition } from "./definitions.js";
import type { Guard } from "./guards.js";
import type { Audience, ChangeKind, Registered, RegisteredKind, Table } from "./table.js";

// How many removed apps' audiences are kept for a list change heard from another process.
const MAX_GONE_APPS = 1000;

/** What the apps of a router need of it: its tables, its modules' rule of one key, and where changes are told. */
export interface AppHost {
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly report: (entry: LogEntry) => void;
  /** Fails when a module already serves `key` (the app's resource must be served once in the tree). */
  admit(kind: RegisteredKind, key: string): void;
  /** A change the apps made, told as the router's own. */
  changed(kind: ChangeKind, audience: Audience, keys: readonly string[]): void;
  /** What the router derived from its apps (its capabilities) no longer holds. */
  forget(): void;
}

/**
 * The MCP Apps of one router, by ui:// URI: the tools that link each, the resource the first of them registered,
 * and who may hear of a change to it (kept, bounded, for an app removed with its last tool).
 */
export class AppRegistry {
  readonly #host: AppHost;
  readonly #apps = new Map<string, AppRecord>();
  // Who could see an app removed with its last tool, for a list change another process tells of it (bounded).
  readonly #gone = new Map<string, Guard | undefined>();

  constructor(host: AppHost) {
    this.#host = host;
  }

  /** True when a tool here links an app. */
  get any(): boolean {
    return this.#apps.size > 0;
  }

  /** Who may hear of a change to the live app at `uri`: undefined for anyone, null when no live app is there. */
  audienceOf(uri: string): Guard | undefined | null {
    const app = this.#apps.get(uri);
    return app?.resource && !app.resource.removed ? appAudience(app.linkers, this.#host.report) : null;
  }

  /** Who could see the app at `uri` removed with its last tool: null when none was. */
  goneAudienceOf(uri: string): Guard | undefined | null {
    return this.#gone.has(uri) ? this.#gone.get(uri) : null;
  }

  /** Adds each live app's audience to `guards`; false once one is anyone's (everyone may hear). */
  audiencesInto(guards: Set<Guard>): boolean {
    for (const { linkers, resource } of this.#apps.values()) {
      if (!resource || resource.removed) continue;
      const audience = appAudience(linkers, this.#host.report);
      if (audience === undefined) return false;
      guards.add(audience);
    }
    return true;
  }

  /** True when the resource at `uri`, guarded by `guard`, is an app every caller sees alike. */
  showsAlike(uri: string, guard: Guard): boolean {
    const app = this.#apps.get(uri);
    return app !== undefined && app.access === guard && callerFree(app);
  }

  /** A tool with an app: the tool linked to it, and the app's resource registered by the first tool that gives its page. */
  addTool(definition: ToolDefinition): Registered<ToolDefinition> {
    const host = this.#host;
    const ui = checkUi(String(definition.name), definition.ui);
    const record: AppRecord = this.#apps.get(ui.uri) ?? { uri: ui.uri, linkers: [] };
    const registers = ui.html !== undefined && record.source === undefined;
    if (ui.html !== undefined && record.source !== undefined && !sameApp(record.source, ui)) {
      throw new DefinitionError(
        `Tool "${definition.name}" ui uri "${ui.uri}" is another tool's app with other html or metadata; give both tools the same ui object to share it`,
      );
    }
    const resource = registers ? appResource(record, ui, host.report) : undefined;
    if (resource) {
      if (host.resources.map.has(ui.uri)) {
        throw new DefinitionError(
          `Tool "${definition.name}" ui uri "${ui.uri}" is already a resource; pick another ui:// URI`,
        );
      }
      // Checked before the tool is added: an app refused leaves no tool behind.
      host.resources.compile(resource);
      host.admit("resource", ui.uri);
    }
    const handle = host.tools.add(linkedTool(definition, ui));
    const linker: Linker = { handle, guard: definition.guard };
    record.linkers.push(linker);
    this.#apps.set(ui.uri, record);
    this.#gone.delete(ui.uri);
    if (resource) {
      record.source = ui;
      record.resource = host.resources.add(resource);
    }
    this.#wrapHandle(record, linker, definition, ui);
    return handle;
  }

  // An app tool's handle: what it does to the tool, it does to who sees the app (told as a resources list change).
  #wrapHandle(record: AppRecord, linker: Linker, definition: ToolDefinition, ui: CheckedUi): void {
    const { handle } = linker;
    for (const op of ["enable", "disable"] as const) {
      const apply = handle[op].bind(handle);
      handle[op] = () => {
        const was = handle.enabled;
        apply();
        if (handle.enabled !== was) this.#changed(record, [linker.guard]);
      };
    }
    // The link outlives update(): new _meta keeps it, and the app itself is fixed at registration.
    const update = handle.update.bind(handle);
    handle.update = (changes) => {
      if ("ui" in changes) {
        throw new DefinitionError(
          `Tool "${handle.key}" ui is fixed at registration: remove the tool and register it again to change its app`,
        );
      }
      update("_meta" in changes ? { ...changes, _meta: linkedTool({ ...definition, ...changes }, ui)._meta } : changes);
      if (!("guard" in changes) || changes.guard === linker.guard) return;
      // A new guard decides who sees the app from now on; both sides hear of it.
      const before = linker.guard;
      linker.guard = changes.guard;
      if (handle.enabled) this.#changed(record, [before, linker.guard]);
    };
    // Removing the last tool that links an app removes the app.
    const remove = handle.remove.bind(handle);
    handle.remove = () => {
      if (handle.removed) return;
      const was = handle.enabled;
      const audience = appAudience(record.linkers, this.#host.report);
      remove();
      record.linkers.splice(record.linkers.indexOf(linker) >>> 0, 1);
      if (was) this.#changed(record, [linker.guard]);
      if (record.linkers.length > 0) return;
      this.#apps.delete(ui.uri);
      if (record.resource && !record.resource.removed) {
        if (this.#gone.size >= MAX_GONE_APPS) this.#gone.clear();
        this.#gone.set(ui.uri, audience);
        record.resource.remove();
      }
      this.#host.forget();
    };
  }

  // Who sees the app changed for whom `guards` allow (anyone when one is undefined).
  #changed(record: AppRecord, guards: readonly (Guard | undefined)[]): void {
    const { resource } = record;
    if (!resource || resource.removed) return;
    const audience = guards.includes(undefined) ? undefined : (guards as Guard[]);
    this.#host.changed("resources", audience, [record.uri]);
  }
}
