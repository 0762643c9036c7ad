import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { featuresOf } from "../protocol/revision.js";
import { shape } from "../protocol/revision-shape.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import { allows, type Guard } from "./guards.js";

/** A list as a revision shows it, and the guards of its items (when any has one). */
interface View<T> {
  items: T[];
  guards?: (Guard | undefined)[];
}

/** What a list is built from: the enabled entries of a registry table (a tool's with its task policy). */
interface Listed<T> {
  enabled(): Iterable<{ wire: T; definition: { guard?: Guard }; task?: { support: string } | undefined }>;
}

/** 2025-11-25 lists how a tool runs as a task (`execution.taskSupport`); absent is "forbidden". */
function withExecution<T extends object>(item: T, task: { support: string } | undefined): T {
  if (task === undefined) return item;
  const execution = (item as { execution?: unknown }).execution;
  const own = typeof execution === "object" && execution !== null ? execution : {};
  return { ...item, execution: { ...own, taskSupport: task.support } };
}

// Each list is shaped once per revision and kept until the registry changes; guards then filter it per caller.
export class Views {
  readonly #views = new Map<string, View<object>>();

  clear(): void {
    // Only when there is something: clearing a Map allocates its table anew, once per registration otherwise.
    if (this.#views.size > 0) this.#views.clear();
  }

  /** What this caller may see of `kind`'s list, as its revision shows it (shared when unguarded: do not mutate). */
  visible<T extends object>(
    kind: string,
    ctx: RequestContext,
    table: Listed<T>,
    report?: (entry: LogEntry) => void,
  ): T[] {
    const view = this.#view(kind, ctx.protocolVersion, table);
    const { guards } = view;
    return guards ? view.items.filter((_, index) => allows(guards[index], ctx, report)) : view.items;
  }

  #view<T extends object>(kind: string, version: ProtocolVersion, table: Listed<T>): View<T> {
    const key = `${kind} ${version}`;
    let view = this.#views.get(key) as View<T> | undefined;
    if (!view) {
      const features = featuresOf(version);
      const all = [...table.enabled()];
      const guards = all.map((item) => item.definition.guard);
      const listsTasks = kind === "tools" && features.tasks === "core";
      view = {
        items: all.map((item) =>
          listsTasks ? withExecution(shape(item.wire, features), item.task) : shape(item.wire, features),
        ),
      };
      if (guards.some((guard) => guard !== undefined)) view.guards = guards;
      this.#views.set(key, view);
    }
    return view;
  }
}
