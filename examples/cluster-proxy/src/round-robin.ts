import { Agent, createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { forward } from "./forward.js";
import { type BackendHealth, createHealthChecks, type HealthChange } from "./health.js";

export type { BackendHealth, HealthChange } from "./health.js";

/** What `startProxy` takes. */
export interface RoundRobinOptions {
  /** The backends' MCP endpoints (`http://127.0.0.1:3001/mcp`); the proxy keeps each request's own path. */
  readonly backends: readonly string[];
  /** Default 0: a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Probed with GET on each backend's origin: 200 keeps it in rotation. Default `/healthz`; `false`: no probes. */
  readonly healthPath?: string | false;
  /** Between two probes of one backend. Default 2000 ms. */
  readonly healthIntervalMs?: number;
  /** Failed probes in a row that take a backend out (a refused connection or 503 `closing`: one). Default 2. */
  readonly unhealthyAfter?: number;
  /** A probe unanswered this long has failed. Default 1000 ms. */
  readonly healthTimeoutMs?: number;
  /**
   * A connection to a backend not open after this long (a blackholed address) counts as refused: the request goes to
   * the next. Default 5000 ms.
   */
  readonly connectTimeoutMs?: number;
  /** Body bytes kept to resend a request whose backend could not be reached. Default 1 MiB; larger is not retried. */
  readonly keepBodyBytes?: number;
  /**
   * Send the client's `Host` on, as a balancer serving a public name does (the backends list it in `allowedHosts`),
   * rather than each backend's own: then every process sees the one origin clients use. Default false.
   */
  readonly keepHost?: boolean;
  /** Told each time a backend leaves or rejoins the rotation for its health. */
  readonly onHealth?: (change: HealthChange) => void;
}

/** One request as the proxy routed it. */
export interface Routed {
  /** The backend's index in `backends`: the one that got it. */
  readonly backend: number;
  /** Backends tried first that refused the connection (the request never reached them). */
  readonly refused: readonly number[];
  /** GET, POST or DELETE. */
  readonly method: string;
  /** The request's `Mcp-Method` header (2026-07-28 clients send it), when there is one. */
  readonly mcpMethod: string | undefined;
  /** The request's `Mcp-Name` header (the tool, prompt or resource a 2026-07-28 request names). */
  readonly mcpName: string | undefined;
}

/** A running proxy. */
export interface RoundRobinProxy {
  /** The MCP endpoint clients use: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Every request so far, in the order it came. */
  readonly routed: readonly Routed[];
  /**
   * The backend the next request goes to: the next in rotation, else (none in rotation) one out for its health, one
   * that refused first; undefined when every one is drained by hand.
   */
  peek(): number | undefined;
  /** Route nothing more to backend `index` (an operator's drain), or again; its health checks go on. */
  rotate(index: number, inRotation: boolean): void;
  /** What the proxy knows of each backend's health. */
  health(): readonly BackendHealth[];
  /** Send backend `index`'s share to another address from now on (a process restarted on a new port). */
  replace(index: number, url: string): void;
  /** Stop listening and cut every connection, streams included. */
  close(): Promise<void>;
}

/**
 * A round-robin reverse proxy with no affinity: request i goes to the i-th backend in rotation, whatever its session.
 * Bodies stream both ways unbuffered, so SSE events reach the client as the backend writes them. Each backend's
 * health route is probed; one that fails, refuses a connection or says `closing` leaves the rotation until a probe
 * succeeds, and a request it refused goes to the next.
 * @example
 * const proxy = await startProxy({ backends: ["http://127.0.0.1:3001/mcp", "http://127.0.0.1:3002/mcp"] });
 * console.log(proxy.url);
 */
export async function startProxy(options: RoundRobinOptions): Promise<RoundRobinProxy> {
  const backends = options.backends.map((url) => new URL(url));
  if (backends.length === 0) throw new Error("startProxy needs at least one backend");
  const drained = new Set<number>();
  const routed: Routed[] = [];
  // One pool per backend, so the idle connections of one that went down can be dropped.
  const agents = backends.map(() => new Agent({ keepAlive: true }));
  // The exchanges open with each backend, each with what cuts it.
  const held = backends.map(() => new Set<() => void>());
  const dropIdle = (index: number) => {
    for (const sockets of Object.values((agents[index] as Agent).freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  };
  const health = createHealthChecks(
    backends.length,
    (index) => backends[index] as URL,
    {
      path: options.healthPath ?? "/healthz",
      intervalMs: options.healthIntervalMs ?? 2000,
      unhealthyAfter: options.unhealthyAfter ?? 2,
      timeoutMs: options.healthTimeoutMs ?? 1000,
    },
    (change) => {
      if (!change.up) dropIdle(change.index);
      options.onHealth?.(change);
    },
    (index, reason, up) => {
      // Accepting connections but answering nothing (a stopped process, a lost host): what it holds would wait
      // forever, a quiet stream included, so it is cut; so is what was sent to it since, as a last resort (below).
      // A draining or refusing one keeps its open exchanges.
      if (!up && /timed out/.test(reason)) {
        for (const stop of [...(held[index] as Set<() => void>)]) stop();
      }
    },
  );
  let next = 0;

  const inRotation = (index: number) => !drained.has(index) && health.isUp(index);
  // None in rotation (the proxy started before its backends, or a load spike timed out every probe at once): a
  // backend out for its health may be back before its next probe, so it is tried rather than the client refused.
  // One that refused goes first: if it refuses again the request reached nothing and goes on to the next.
  const lastResort = (tried?: ReadonlySet<number>): number | undefined => {
    let best: number | undefined;
    let bestRank = 2;
    for (let step = 0; step < backends.length; step++) {
      const index = (next + step) % backends.length;
      if (drained.has(index) || tried?.has(index)) continue;
      const rank = /refused/i.test(health.state(index).reason ?? "") ? 0 : 1;
      if (rank < bestRank) [best, bestRank] = [index, rank];
    }
    return best;
  };
  const pick = (advance: boolean, tried?: ReadonlySet<number>): number | undefined => {
    for (let step = 0; step < backends.length; step++) {
      const index = (next + step) % backends.length;
      if (!inRotation(index) || tried?.has(index)) continue;
      if (advance) next = index + 1;
      return index;
    }
    return lastResort(tried);
  };
  const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const first = pick(true);
    if (first === undefined) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "1" }).end("every backend drained\n");
      return;
    }
    const at = routed.length;
    const refused: number[] = [];
    forward(req, res, first, {
      pick: (tried) => pick(true, tried),
      url: (index) => backends[index] as URL,
      agent: (index) => agents[index] as Agent,
      attempt(index) {
        // A last resort: if it answers, its probe puts it back in rotation now rather than at the next interval.
        if (!health.isUp(index)) health.probeNow(index);
        routed[at] = {
          backend: index,
          refused: [...refused],
          method: req.method ?? "GET",
          mcpMethod: header(req.headers["mcp-method"]),
          mcpName: header(req.headers["mcp-name"]),
        };
      },
      refused(index, reason) {
        refused.push(index);
        health.down(index, reason);
      },
      cut: (index) => health.probeNow(index),
      hold(index, stop) {
        const set = held[index] as Set<() => void>;
        set.add(stop);
        return () => set.delete(stop);
      },
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      keepBodyBytes: options.keepBodyBytes ?? 1024 * 1024,
      keepHost: options.keepHost ?? false,
    });
  };

  const server = createServer(serve);
  const host = options.host ?? "127.0.0.1";
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    health.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/mcp`,
    routed,
    peek: () => pick(false),
    rotate(index, on) {
      if (on) drained.delete(index);
      else drained.add(index);
    },
    health: () => backends.map((_, index) => health.state(index)),
    replace(index, url) {
      backends[index] = new URL(url);
      dropIdle(index);
      health.replaced(index);
    },
    close: () =>
      new Promise<void>((resolve) => {
        health.close();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const agent of agents) agent.destroy();
      }),
  };
}
