import type { Connection, Phase, ReceiveOptions } from "@toolsmith/core/transport";
import { isBlankLine } from "./blank-line.js";
import { tooLargeReply } from "./framing.js";
import { busyReply, cancelledId, MixedBatch, NOT_URGENT, urgentMessage } from "./line-kinds.js";
import type { LineEvent } from "./line-reader.js";
import { Outgoing } from "./outgoing.js";
import type { StdoutRedirect } from "./stdout-redirect.js";
import { Tap, type WireEntry } from "./tap.js";
import { WaitingLines } from "./waiting-lines.js";

// While stdout is blocked, reading goes on (the client's answers may be behind) until this much waits, then pauses.
const PAUSE_BYTES = 1024 * 1024;
// The phase a line came in with rides along as its tag, onto every reply it causes (made once, not per line).
const TAGGED: Record<Phase, ReceiveOptions> = {
  initialization: { tag: "initialization" },
  operation: { tag: "operation" },
};

/** What the flow of lines is wired to, and its bounds. */
export interface FlowOptions {
  connection: Connection;
  /** Paused while the client is not reading replies and enough waits, or once closing; resumed after. */
  stdin: NodeJS.ReadableStream;
  /** Writes one framed line to stdout; false when stdout's buffer is full. */
  write: StdoutRedirect["write"];
  maxInFlight: number;
  maxQueuedBytes: number;
  maxLineBytes: number;
  tap: ((entry: WireEntry) => void) | undefined;
  log: (error: unknown, where: { method: string }) => void;
  /** Called when the input has ended (or serving stops), nothing waits and nothing runs. */
  settled: () => void;
}

/**
 * Lines between stdio and the connection: each line read is served at once, waits its turn (at most `maxInFlight`
 * served at once, and none while stdout is blocked), or is answered "busy" past `maxQueuedBytes`; stdin pauses
 * only while stdout is blocked and enough waits. What the connection says goes out through `out` (outgoing.ts).
 */
export class FlowControl {
  readonly #connection: Connection;
  readonly #stdin: NodeJS.ReadableStream;
  /** What goes out on stdout: replies (`hold` them while a chunk is served, `flow` releases them) and the rest. */
  readonly out: Outgoing;
  readonly #maxInFlight: number;
  readonly #maxQueuedBytes: number;
  readonly #maxLineBytes: number;
  readonly #tap: Tap;
  readonly #log: (error: unknown, where: { method: string }) => void;
  readonly #settled: () => void;
  // Requests (and notifications other than cancellations) read but not served yet, in order.
  readonly #waiting = new WaitingLines((event) => this.#tapIn(event));
  // Lines whose handlers have not answered yet: at a forced finish each request in them is answered for.
  readonly #unanswered = new Set<LineEvent>();
  #inFlight = 0;
  // Lines being handed to the connection: a synchronous handler may close() meanwhile, and still gets its reply.
  #dispatching = 0;
  #paused = false;
  #flowing = false;
  #inputEnded = false;
  #stopping = false;
  // Why requests not started yet are refused rather than served (shutting down), once they are.
  #refusing: string | undefined;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(options: FlowOptions) {
    this.#connection = options.connection;
    this.#stdin = options.stdin;
    this.#maxInFlight = options.maxInFlight;
    this.#maxQueuedBytes = options.maxQueuedBytes;
    this.#maxLineBytes = options.maxLineBytes;
    this.#log = options.log;
    this.#tap = new Tap(options.tap, options.log);
    this.out = new Outgoing(options.write, this.#tap);
    this.#settled = options.settled;
  }

  /** True once the input has ended: nothing more will be read. */
  get inputEnded(): boolean {
    return this.#inputEnded;
  }

  /** True once serving stopped: nothing more is written. */
  get finished(): boolean {
    return this.out.finished;
  }

  /**
   * Take a line just read (then `flow`). Served at once when nothing waits and there is room; otherwise the client's
   * answers and cancellations still go through at once (the requests holding the slots may await them), and the rest
   * waits its turn, up to maxQueuedBytes: past that a request is answered "busy" rather than reading stop.
   */
  accept(event: LineEvent): void {
    if (this.#stopping) {
      // Read with a line that closed the server (a synchronous handler's close()): refused, not left unanswered.
      if (!this.out.finished) this.#refuse(event, this.#refusing as string);
      return;
    }
    if (
      (this.#waiting.empty && !this.out.blocked && this.#inFlight < this.#maxInFlight) ||
      event.kind === "oversized"
    ) {
      this.#dispatch(event);
      return;
    }
    const urgent = urgentMessage(event.text);
    let parsed: unknown;
    if (urgent instanceof MixedBatch) {
      // A batch of requests and answers: its answers are taken now; the batch waits its turn, where they are
      // answers to nothing (dropped), as the server never reuses its own request ids.
      for (const answer of urgent.answers) this.#connection.receive(event.text, { parsed: answer });
      parsed = urgent.message;
    } else if (urgent !== NOT_URGENT) {
      const cancelled = cancelledId(urgent);
      const running = this.#connection.pending;
      this.#dispatch(event, urgent);
      // It cancelled nothing running: the request it names may still be waiting, and is dropped at its turn
      // (past maxQueuedBytes it is not looked for: that request, if it waits, is answered, as a late cancel is).
      const missed = cancelled !== undefined && this.#connection.pending === running;
      if (missed && this.#waiting.bytes < this.#maxQueuedBytes) this.#waiting.cancel(cancelled);
      return;
    }
    if (this.#waiting.bytes >= this.#maxQueuedBytes) {
      const why = `Server busy: ${this.#waiting.bytes} bytes of requests are already waiting; try again later`;
      this.#refuse(event, why, parsed);
    } else this.#waiting.push(event);
  }

  /** Serve waiting lines in order while there is room, then pause or resume reading. */
  flow(): void {
    if (this.#flowing || this.out.finished) return;
    this.#flowing = true;
    this.out.hold();
    try {
      // Shutting down: what has not started gets its refusal now rather than run after the abort.
      const refusing = this.#refusing;
      if (refusing !== undefined) {
        for (let next = this.#waiting.shift(); next; next = this.#waiting.shift()) {
          this.#refuse(next.event, refusing, next.parsed);
        }
      }
      while (!this.out.blocked && !this.#stopping && this.#inFlight < this.#maxInFlight) {
        const next = this.#waiting.shift();
        if (next === undefined) break;
        this.#dispatch(next.event, next.parsed);
      }
    } finally {
      this.#flowing = false;
      this.out.release();
    }
    // Reading stops only while the client is not reading our replies (and enough is queued), or when closing.
    const shouldPause = this.#stopping || (this.out.blocked && this.#waiting.bytes >= PAUSE_BYTES);
    if (shouldPause && !this.#paused) {
      this.#paused = true;
      this.#stdin.pause();
    } else if (!shouldPause && this.#paused && !this.#inputEnded) {
      this.#paused = false;
      this.#stdin.resume();
    }
    this.#holdAlive(this.#paused && !this.#stopping && !this.#inputEnded);
    if (this.#inputEnded && this.#waiting.empty) {
      // Everything sent has been read: listen streams end now, with their closing result, not at the timeout.
      this.#connection.endSubscriptions();
    }
    const idle = this.#waiting.empty && this.#inFlight === 0 && this.#dispatching === 0;
    if ((this.#inputEnded || this.#stopping) && idle) this.#settled();
  }

  /** stdout has room again. */
  drained(): void {
    this.out.drained();
    this.flow();
  }

  /** Nothing more will be read: what waits is still served. */
  endInput(): void {
    this.#inputEnded = true;
  }

  /** From now on, requests that have not started are answered -32000 `why` instead (the first reason stays). */
  refuseWaiting(why: string): void {
    this.#refusing ??= why;
  }

  /** Stop taking lines: what waits is answered -32000 `why`, what runs still gets its reply. False if already done. */
  stop(why: string): boolean {
    if (this.out.finished || this.#stopping) return false;
    this.#stopping = true;
    this.#refusing = why;
    return true;
  }

  /** Answer -32000 `why` for each request whose handler has not answered (it ignored its abort). */
  answerUnanswered(why: string): void {
    // Each such line held a request (it made a promise), parsed before: its refusal answers it.
    for (const event of this.#unanswered) {
      const refusal = event.kind === "line" ? busyReply(JSON.parse(event.text), event.text, why) : undefined;
      if (refusal !== undefined) this.out.send(refusal, this.#connection.phase);
    }
    this.#unanswered.clear();
  }

  /** Stop for good: nothing more is served or written, and nothing keeps the process alive. */
  finish(): void {
    this.out.finish();
    this.#unanswered.clear();
    this.#holdAlive(false);
  }

  #tapIn(event: LineEvent): void {
    if (event.kind === "line" && this.#tap.on) {
      this.#tap.see({ direction: "in", line: event.text, phase: this.#connection.phase });
    }
  }

  // `parsed`: the line's message, when it was parsed already to tell what it is.
  #dispatch(event: LineEvent, parsed?: unknown): void {
    if (event.kind === "oversized") {
      if (!event.notification) this.out.send(tooLargeReply(event, this.#maxLineBytes), this.#connection.phase);
      return;
    }
    if (isBlankLine(event.text)) return;
    const connection = this.#connection;
    if (this.#tap.on) this.#tap.see({ direction: "in", line: event.text, phase: connection.phase });
    let done: void | Promise<void>;
    this.#dispatching++;
    try {
      // Replies and everything else the connection says go out through `send` as they happen.
      done =
        parsed !== undefined
          ? connection.receive(event.text, { ...TAGGED[connection.phase], parsed })
          : this.#tap.on
            ? connection.receive(event.text, TAGGED[connection.phase])
            : connection.receive(event.text);
    } catch (error) {
      this.#log(error, { method: "(dispatch)" });
      return;
    } finally {
      this.#dispatching--;
    }
    if (done === undefined) return;
    // An asynchronous handler: its slot is held until its reply has gone out.
    this.#inFlight++;
    this.#unanswered.add(event);
    done.then(
      () => {
        this.#inFlight--;
        this.#unanswered.delete(event);
        this.flow();
      },
      (error: unknown) => {
        this.#inFlight--;
        this.#unanswered.delete(event);
        this.#log(error, { method: "(dispatch)" });
        this.flow();
      },
    );
  }

  // Answer each request `event` holds with -32000 `why`, unserved; anything else in it (a notification, an
  // answer, a line that is not JSON) is handled as usual, since it takes no slot.
  #refuse(event: LineEvent, why: string, parsed?: unknown): void {
    if (event.kind !== "line") return;
    let message = parsed;
    try {
      message ??= JSON.parse(event.text);
    } catch {
      this.#dispatch(event);
      return;
    }
    const busy = busyReply(message, event.text, why);
    // Not a request (a notification, a malformed line): served now, it takes no slot.
    if (busy === undefined) {
      this.#dispatch(event, message);
      return;
    }
    this.#tapIn(event);
    this.out.send(busy, this.#connection.phase);
  }

  // A paused stdin keeps no process alive; while input is still open, this timer does.
  #holdAlive(hold: boolean): void {
    if (hold && this.#keepAlive === undefined) {
      this.#keepAlive = setInterval(() => {}, 1 << 30);
    } else if (!hold && this.#keepAlive !== undefined) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }
}
