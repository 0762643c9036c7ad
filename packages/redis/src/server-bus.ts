import type { ServerBus, ServerSignal } from "@toolsmith/core/engine";
import type { RedisLifecycle } from "./lifecycle.js";
import * as scripts from "./scripts.js";

type HandleOp = Extract<ServerSignal, { type: "handle" }>;

/** The Redis engine's `ServerBus`: one channel (`bus`) for the server, and its handle ops kept in a list (`ops`). */
export class RedisServerBus implements ServerBus {
  readonly #redis: RedisLifecycle;

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async broadcast(signal: ServerSignal): Promise<void> {
    const open = this.#redis.started();
    const message = JSON.stringify({ from: this.#redis.node, signal });
    if (signal.type === "handle") {
      const as = (op: HandleOp["op"]) => JSON.stringify({ type: "handle", kind: signal.kind, name: signal.name, op });
      await this.#redis.run(scripts.HANDLE_OP, [as(signal.op), message, as("enable"), as("disable")]);
    } else {
      await this.#redis.call(() => open.main.publish(`${open.prefix}bus`, message));
    }
  }

  onBroadcast(listener: (signal: ServerSignal) => void): () => void {
    this.#redis.broadcasts.add(listener);
    return () => void this.#redis.broadcasts.delete(listener);
  }

  async handleOps(): Promise<readonly HandleOp[]> {
    const open = this.#redis.started();
    const ops = await this.#redis.call(() => open.main.lrange(`${open.prefix}ops`, 0, -1));
    return ops.map((op) => JSON.parse(op) as HandleOp);
  }
}
