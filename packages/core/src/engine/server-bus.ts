import type { MaybePromise } from "../wire/maybe.js";
import type { Unfollow } from "./lifecycle.js";

/** What travels on the server's channel to every process of the server. */
export type ServerSignal =
  /** Items of a list changed (each process finds their audience by name in its own registry). */
  | {
      readonly type: "listChanged";
      readonly kind: "tools" | "resources" | "prompts";
      readonly names: readonly string[];
    }
  /** `server.resourceUpdated(uri)` on some process. */
  | { readonly type: "resourceUpdated"; readonly uri: string }
  /** A handle's enable, disable or remove, applied on every process (and on any that starts later). */
  | {
      readonly type: "handle";
      readonly kind: "tools" | "resources" | "prompts" | "templates";
      readonly name: string;
      readonly op: "enable" | "disable" | "remove";
    };

/**
 * The bus between a server's processes: a list change, a resource update or a handle op made on one process reaches
 * every other (each applies it to its own registry and tells its own clients), never the process that said it.
 * At most once, in the order each process said them: nothing is kept of a list change or an update (a process that
 * missed some while its store was away hears `onResume` and catches up), but handle ops are kept for processes that
 * start later, bounded by the handles (a handle's last enable or disable, and its remove). A process that is alone
 * (`shared: false`) hears nothing and still keeps the ops. Core uses it only when the engine is shared.
 */
export interface ServerBus {
  /** Say something to every process of the server (handle ops are also kept for processes that start later). */
  broadcast(signal: ServerSignal): MaybePromise<void>;
  /** Hear the server's signals from other processes (never this process's own). */
  onBroadcast(listener: (signal: ServerSignal) => void): Unfollow;
  /**
   * The handle ops kept so far, in order (a process applies them at start): a handle's last enable or disable and
   * its remove, so they stay as many as the handles however often one is toggled.
   */
  handleOps(): MaybePromise<readonly Extract<ServerSignal, { type: "handle" }>[]>;
}
