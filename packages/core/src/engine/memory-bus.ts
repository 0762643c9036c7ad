import type { ServerBus, ServerSignal } from "./server-bus.js";

type HandleOp = Extract<ServerSignal, { type: "handle" }>;

/**
 * The memory engine's `ServerBus`: there is no other process to hear a broadcast, but handle ops are kept, as a shared
 * engine keeps them for processes to come.
 */
export class MemoryBus implements ServerBus {
  readonly #handleOps: HandleOp[] = [];

  broadcast(signal: ServerSignal): void {
    if (signal.type !== "handle") return;
    // A handle's op overrides its earlier enable or disable (and a second remove adds nothing): bounded by handles.
    const ops = this.#handleOps;
    let at = 0;
    for (const op of ops) {
      if (op.kind !== signal.kind || op.name !== signal.name || (op.op === "remove" && signal.op !== "remove")) {
        ops[at++] = op;
      }
    }
    ops.length = at;
    ops.push({ type: "handle", kind: signal.kind, name: signal.name, op: signal.op });
  }

  onBroadcast(_listener: (signal: ServerSignal) => void): () => void {
    // Only other processes' broadcasts are heard, and there is none.
    return () => {};
  }

  handleOps(): readonly HandleOp[] {
    return [...this.#handleOps];
  }

  clear(): void {
    this.#handleOps.length = 0;
  }
}
