import type { Server } from "../server/servable.js";
import { isPromiseLike } from "../wire/maybe.js";
import type { ConnectOptions, ReceiveOptions } from "./connect-options.js";
import type { Connection } from "./connection.js";
import type { Delivery } from "./outlet.js";

// Shared by the core tests: a connection whose outbound lines are recorded, and the reply to one line.

/** One line a connection sent, and how it was routed. */
export interface SentLine {
  line: string;
  delivery: Delivery;
}

interface Wire {
  /** Everything the connection sent, in order. */
  readonly sent: SentLine[];
  /** Set while `receive` runs: the response lines it sent synchronously (they answer that message). */
  current: string[] | undefined;
  /** Later replies, claimed by the id of the request they answer ("batch" for a batch's one reply). */
  readonly waiting: Map<string, string[][]>;
}

const WIRES = new WeakMap<Connection, Wire>();

function wireOf(connection: Connection): Wire {
  const wire = WIRES.get(connection);
  if (!wire) throw new Error("this connection was not made by connectLines()");
  return wire;
}

// The key a reply is claimed by: its id (strings and numbers apart), or "batch" for an array of replies.
function claimKey(message: unknown): string | undefined {
  if (Array.isArray(message)) return "batch";
  if (typeof message !== "object" || message === null) return undefined;
  const id = (message as { id?: unknown }).id;
  if (typeof id === "string") return `s${id}`;
  if (typeof id === "number") return `n${id}`;
  return undefined;
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Connect to `server` with a sink that records every outbound line, for `replyTo` and `sentOn`. */
export function connectLines(server: Server, options: Omit<ConnectOptions, "send"> = {}): Connection {
  const wire: Wire = { sent: [], current: undefined, waiting: new Map() };
  const connection = server.connect({
    ...options,
    send(line, delivery) {
      wire.sent.push({ line, delivery });
      if (delivery.kind !== "response") return;
      if (wire.current) {
        wire.current.push(line);
        return;
      }
      const key = claimKey(parsed(line));
      const queue = key === undefined ? undefined : wire.waiting.get(key);
      // The newest claim: an older request with the same id was cancelled (the connection refuses a duplicate in flight).
      const into = queue?.pop();
      if (queue && queue.length === 0 && key !== undefined) wire.waiting.delete(key);
      into?.push(line);
    },
  });
  WIRES.set(connection, wire);
  return connection;
}

/** Every line `connection` (made by `connectLines`) has sent so far, with its delivery. */
export function sentOn(connection: Connection): SentLine[] {
  return wireOf(connection).sent;
}

/**
 * Give `connection` one line and collect its reply: undefined for a notification, a response, or a cancelled
 * request. Resolves once the connection has finished with the line (as `receive` does).
 */
export function replyTo(connection: Connection, line: string, options?: ReceiveOptions): Promise<string | undefined> {
  const wire = wireOf(connection);
  const replies: string[] = [];
  const done = receiveInto(connection, wire, line, options, replies);
  if (!isPromiseLike<void>(done)) return Promise.resolve(replies[0]);
  return Promise.resolve(done).then(() => replies[0]);
}

/**
 * Give `connection` one line and hand back what `receive` returned (undefined when everything was synchronous)
 * together with the replies collected so far and once it settles.
 */
export function receiveLine(
  connection: Connection,
  line: string,
  options?: ReceiveOptions,
): { returned: ReturnType<Connection["receive"]>; replies: string[]; reply: Promise<string | undefined> } {
  const wire = wireOf(connection);
  const replies: string[] = [];
  const returned = receiveInto(connection, wire, line, options, replies);
  const reply = isPromiseLike<void>(returned)
    ? Promise.resolve(returned).then(() => replies[0])
    : Promise.resolve(replies[0]);
  return { returned, replies, reply };
}

function receiveInto(
  connection: Connection,
  wire: Wire,
  line: string,
  options: ReceiveOptions | undefined,
  replies: string[],
): ReturnType<Connection["receive"]> {
  const previous = wire.current;
  wire.current = replies;
  let done: ReturnType<Connection["receive"]>;
  try {
    done = connection.receive(line, options);
  } finally {
    wire.current = previous;
  }
  if (isPromiseLike<void>(done) && replies.length === 0) {
    // The reply comes later: claim it by the request's id (or as the batch's one reply).
    const key = claimKey(parsed(line));
    if (key !== undefined) {
      const queue = wire.waiting.get(key) ?? [];
      queue.push(replies);
      wire.waiting.set(key, queue);
      // A request that ends without a reply (cancelled) gives up its claim.
      const release = () => {
        const index = queue.indexOf(replies);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0 && wire.waiting.get(key) === queue) wire.waiting.delete(key);
      };
      Promise.resolve(done).then(release, release);
    }
  }
  return done;
}
