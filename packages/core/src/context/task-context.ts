import type { LogLevel } from "../protocol/log-levels.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { InferInput, InputSchema } from "../schema/schema-adapter.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation } from "../wire/types.js";
import {
  type Asker,
  ask,
  type ElicitForm,
  type ElicitRawForm,
  type ElicitResult,
  type ElicitUrl,
  type Root,
  type SampleRequest,
  type SampleResult,
} from "./ask.js";
import { type ClientLog, clientLog } from "./client-log.js";
import type { AuthInfo, Era, RequestContext } from "./context.js";
import { type Keeper, keeperOf } from "./keep.js";
import { nextProgress } from "./progress.js";
import type { ContextStore } from "./store-scopes.js";
import type { TraceContext } from "./trace.js";

/** What a task's context needs from its runner. */
export interface TaskPort {
  readonly id: string;
  readonly signal: AbortSignal;
  readonly ask: Asker;
  /** Progress as the task's status message (the runner throttles it). */
  message(text: string): void;
  /** Progress as numbers, for a task whose request's progress token stays valid (2025-11-25). */
  progress?(done: number, total: number | undefined, message: string | undefined): void;
  /** The server's own log (a task's log never reaches the client). */
  log(level: LogLevel, first: unknown, second: unknown, logger: string | undefined): void;
}

/** What a task's handler gets: the creating request's identity, the task's own signal, asking and progress. */
export class TaskContext implements RequestContext {
  readonly requestId: RequestId;
  readonly revision: RevisionFeatures;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly trace: TraceContext | undefined;
  readonly auth: AuthInfo | undefined;
  readonly caller: string | undefined;
  readonly extra: Record<string, unknown>;
  readonly task: { readonly id: string };
  readonly #from: RequestContext;
  readonly tag: unknown = undefined;
  readonly inputs = undefined;
  readonly asker: Asker;
  readonly #port: TaskPort;
  readonly #logger: string | undefined;
  #log: ClientLog | undefined;
  #lastProgress = Number.NEGATIVE_INFINITY;
  /** What `ctx.keep` holds (a task waits for its answers: computed once, carried nowhere). */
  keeper: Keeper | undefined;

  constructor(
    from: RequestContext & { readonly revision: RevisionFeatures },
    port: TaskPort,
    logger: string | undefined,
  ) {
    this.requestId = from.requestId;
    this.revision = from.revision;
    this.clientInfo = from.clientInfo;
    this.clientCapabilities = from.clientCapabilities;
    this.meta = from.meta;
    this.trace = from.trace;
    this.auth = from.auth;
    this.caller = from.caller;
    this.extra = { ...from.extra };
    this.task = { id: port.id };
    this.#from = from;
    this.asker = port.ask;
    this.#port = port;
    this.#logger = logger;
  }

  /** The creating request's store: its server's, its caller's. */
  get store(): ContextStore {
    return this.#from.store;
  }

  get protocolVersion(): ProtocolVersion {
    return this.revision.version;
  }

  get era(): Era {
    return this.revision.era;
  }

  get signal(): AbortSignal {
    return this.#port.signal;
  }

  /** Already a task: nothing to do. */
  detach(): Promise<void> {
    return Promise.resolve();
  }

  progress(done: number, total?: number, message?: string): void {
    this.#lastProgress = nextProgress(done, this.#lastProgress);
    this.#port.message(message ?? (total === undefined ? String(done) : `${done}/${total}`));
    this.#port.progress?.(done, total, message);
  }

  get log(): ClientLog {
    this.#log ??= clientLog(
      (level, first, second, logger) => this.#port.log(level, first, second, logger),
      undefined,
      () => this.#logger,
    );
    return this.#log;
  }

  elicit<S extends InputSchema>(request: ElicitForm<S>): Promise<ElicitResult<InferInput<S>>>;
  elicit(request: ElicitRawForm): Promise<ElicitResult<Record<string, unknown>>>;
  elicit(request: ElicitUrl): Promise<ElicitResult<undefined>>;
  elicit(request: ElicitForm | ElicitRawForm | ElicitUrl): Promise<ElicitResult<never>> {
    return ask.elicit(this, NO_PORT, request) as Promise<ElicitResult<never>>;
  }

  sample(request: SampleRequest): Promise<SampleResult> {
    return ask.sample(this, NO_PORT, request);
  }

  roots(options?: { key?: string }): Promise<Root[]> {
    return ask.roots(this, NO_PORT, options?.key);
  }

  keep<T>(name: string, compute: () => MaybePromise<T>): Promise<T> {
    return keeperOf(this).keep(name, compute);
  }
}

// A task asks through its asker, never through a connection.
const NO_PORT = {
  request(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error("a task asks through its runner"));
  },
};
