import type { RunningRequest, SessionChannel, SessionSignal } from "@toolsmith/core/engine";
import { KEEP_CANCEL, KEEP_CLIENT_LINE, TAKE_CANCELS, TAKE_CLIENT_LINES } from "./client-lines.js";
import { type RedisLifecycle, RUN_KEEP_MS } from "./lifecycle.js";

// Client lines kept for one process: the newest this many, each at most this long (a longer one is only signalled),
// for as long as what it runs is kept for another to claim. Bounded: a client may name a live process's id.
const MAX_CLIENT_LINES = 256;
// Of those, at most this many from one session until the process takes them: one client's flood keeps no more.
const MAX_CLIENT_LINES_PER_SESSION = 16;
const MAX_CLIENT_LINE_CHARS = 256 * 1024;
// Cancellations kept per session (the newest this many: a client fills its own alone), each at most this long (a longer one only
// signalled): what the process running the request takes if it missed the signal.
const MAX_KEPT_CANCELS = 64;
const MAX_CANCEL_LINE_CHARS = 4096;
// Client lines for a process whose lease is not live (lapsed while Redis was down, or it stalled) are kept this long:
// a living process is back and takes them well within it; a name no process has costs a minute at most.
const LAPSED_CLIENT_LINES_MS = 60_000;

/**
 * The Redis engine's `SessionChannel`: a pub/sub channel per session (`c:<id>`); a client line for a process, and a
 * cancellation, kept and published in one script.
 */
export class RedisSessionChannel implements SessionChannel {
  readonly #redis: RedisLifecycle;

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async signal(session: string, signal: SessionSignal): Promise<void> {
    const open = this.#redis.started();
    if (signal.type === "client" && signal.to !== undefined && signal.line.length <= MAX_CLIENT_LINE_CHARS) {
      const entry = JSON.stringify({ session, line: signal.line });
      const signalled = JSON.stringify(signal);
      const args = [
        session,
        signal.to,
        entry,
        signalled,
        RUN_KEEP_MS,
        MAX_CLIENT_LINES,
        MAX_CLIENT_LINES_PER_SESSION,
        LAPSED_CLIENT_LINES_MS,
      ];
      await this.#redis.run(KEEP_CLIENT_LINE, args);
      return;
    }
    if (signal.type === "client" && signal.cancels !== undefined && signal.line.length <= MAX_CANCEL_LINE_CHARS) {
      const args = [session, signal.cancels, signal.line, JSON.stringify(signal), MAX_KEPT_CANCELS];
      await this.#redis.run(KEEP_CANCEL, args);
      return;
    }
    await this.#redis.call(() => open.main.publish(`${open.prefix}c:${session}`, JSON.stringify(signal)));
  }

  async follow(session: string, listener: (signal: SessionSignal) => void): Promise<() => Promise<void>> {
    const open = this.#redis.started();
    return this.#redis.call(() => open.channels.listen(`${open.prefix}c:${session}`, listener as (m: unknown) => void));
  }

  async takeClientLines(): Promise<readonly { session: string; line: string }[]> {
    const entries = (await this.#redis.run(TAKE_CLIENT_LINES, [this.#redis.node])) as string[];
    return entries.map((entry) => JSON.parse(entry) as { session: string; line: string });
  }

  async takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): Promise<readonly { session: string; request: string; line: string }[]> {
    if (running.length === 0) return [];
    const flat = (await this.#redis.run(
      TAKE_CANCELS,
      running.flatMap(({ session, request }) => [session, request]),
    )) as string[];
    const taken: { session: string; request: string; line: string }[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      taken.push({ session: flat[i] as string, request: flat[i + 1] as string, line: flat[i + 2] as string });
    }
    return taken;
  }
}
