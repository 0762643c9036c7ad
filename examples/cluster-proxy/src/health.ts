import { Agent, type ClientRequest, request } from "node:http";

/** How the proxy checks its backends. */
export interface HealthOptions {
  /** Probed with GET on each backend's origin; `false`: no probes (a refused connection still takes one out). */
  readonly path: string | false;
  /** Between one probe of a backend and the next. */
  readonly intervalMs: number;
  /** Consecutive failed probes that take a backend out (a refused connection or 503 `closing` does it at once). */
  readonly unhealthyAfter: number;
  /** A probe not answered within this has failed. */
  readonly timeoutMs: number;
}

/** What the proxy knows of one backend's health. */
export interface BackendHealth {
  /** Its MCP endpoint now (`replace` changes it). */
  readonly url: string;
  /** False once it is out of rotation for its health, until a probe succeeds. */
  readonly up: boolean;
  /** Why it went down, or the last probe failure while still up. */
  readonly reason: string | undefined;
  /** Failed probes in a row. */
  readonly failures: number;
}

/** A backend leaving or rejoining the rotation for its health. */
export interface HealthChange {
  readonly index: number;
  readonly url: string;
  readonly up: boolean;
  readonly reason: string | undefined;
}

/** The checks of every backend, active (probes) and passive (what requests meet). */
export interface HealthChecks {
  isUp(index: number): boolean;
  /** Out of rotation at once (a refused connection), until a probe succeeds. */
  down(index: number, reason: string): void;
  /** Probe now rather than at the next interval (a response cut). */
  probeNow(index: number): void;
  /** Forget a probe in flight (to the old address) and probe the backend's new address now. */
  replaced(index: number): void;
  /** Its state for `health()`. */
  state(index: number): BackendHealth;
  /** Every timer cleared, every probe in flight ended. */
  close(): void;
}

interface Slot {
  up: boolean;
  reason: string | undefined;
  failures: number;
  timer: NodeJS.Timeout | undefined;
  probe: ClientRequest | undefined;
  /** Bumped by `replaced`: a probe of the old address settles nothing. */
  generation: number;
}

/**
 * Probe each backend every `intervalMs` (the first at once); `urlOf(i)` is read at each probe, so a replace is seen.
 * `onChange` hears each backend leave or rejoin the rotation, `onFailure` each failed probe (`up`: still in rotation).
 */
export function createHealthChecks(
  count: number,
  urlOf: (index: number) => URL,
  options: HealthOptions,
  onChange: (change: HealthChange) => void,
  onFailure: (index: number, reason: string, up: boolean) => void = () => {},
): HealthChecks {
  const slots: Slot[] = Array.from({ length: count }, () => ({
    up: true,
    reason: undefined,
    failures: 0,
    timer: undefined,
    probe: undefined,
    generation: 0,
  }));
  // Its own connections: a probe never waits behind a stream, and sees `closing` on a connection a draining
  // server keeps open.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let closed = false;

  const slot = (index: number) => slots[index] as Slot;
  const set = (index: number, up: boolean, reason: string | undefined) => {
    const s = slot(index);
    s.reason = reason;
    if (s.up === up) return;
    s.up = up;
    onChange({ index, url: urlOf(index).href, up, reason });
  };
  const schedule = (index: number, ms: number) => {
    const s = slot(index);
    clearTimeout(s.timer);
    s.timer = closed || options.path === false ? undefined : setTimeout(() => probe(index), ms);
  };
  const settle = (index: number, failure: string | undefined, atOnce = false) => {
    const s = slot(index);
    s.probe = undefined;
    if (closed) return;
    if (failure === undefined) {
      s.failures = 0;
      set(index, true, undefined);
    } else {
      s.failures++;
      set(index, s.up && !atOnce && s.failures < options.unhealthyAfter, failure);
      onFailure(index, failure, s.up);
    }
    schedule(index, options.intervalMs);
  };
  const probe = (index: number) => {
    const s = slot(index);
    s.timer = undefined;
    if (closed || s.probe || options.path === false) return;
    const url = urlOf(index);
    const generation = s.generation;
    let done = false;
    const finish = (failure: string | undefined, atOnce = false) => {
      if (done || generation !== s.generation) return;
      done = true;
      settle(index, failure, atOnce);
    };
    const req = request(
      { agent, host: url.hostname, port: url.port, path: options.path, headers: { host: url.host } },
      (answer) => {
        let body = "";
        answer.setEncoding("utf8").on("data", (chunk: string) => {
          if (body.length < 64) body += chunk;
        });
        answer.once("end", () => {
          if (answer.statusCode === 200) finish(undefined);
          // A draining server says so: out at once, not after `unhealthyAfter` probes.
          else if (answer.statusCode === 503 && body.trim() === "closing") finish("closing", true);
          else finish(`HTTP ${answer.statusCode}`);
        });
        answer.once("error", () => finish("probe cut"));
      },
    );
    s.probe = req;
    // A timer of its own, not the socket's idle timeout: that starts once connected, and a blackholed connect hangs.
    const timer = setTimeout(() => req.destroy(new Error("timed out")), options.timeoutMs);
    req.once("close", () => clearTimeout(timer));
    req.once("error", (error: NodeJS.ErrnoException) => {
      // Nothing listens there: no need to ask again before taking it out.
      if (error.code === "ECONNREFUSED") finish("refused", true);
      else finish(error.code ?? error.message);
    });
    req.end();
  };

  for (let index = 0; index < count; index++) schedule(index, 0);
  return {
    isUp: (index) => slot(index).up,
    down(index, reason) {
      // Without probes nothing would put it back: the request is still retried elsewhere.
      if (options.path === false) return;
      slot(index).failures = Math.max(slot(index).failures, options.unhealthyAfter);
      set(index, false, reason);
    },
    probeNow(index) {
      if (!slot(index).probe) schedule(index, 0);
    },
    replaced(index) {
      const s = slot(index);
      s.generation++;
      s.probe?.destroy();
      s.probe = undefined;
      schedule(index, 0);
    },
    state(index) {
      const { up, reason, failures } = slot(index);
      return { url: urlOf(index).href, up, reason, failures };
    },
    close() {
      closed = true;
      for (const s of slots) {
        clearTimeout(s.timer);
        s.timer = undefined;
        s.probe?.destroy();
      }
      agent.destroy();
    },
  };
}
