import type { InputRound, Round } from "../context/ask.js";
import type { RequestContext } from "../context/context.js";
import { nameLogger } from "../context/request-context.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";

/** What kind of operation a middleware sees. */
export type OperationKind = "call" | "read" | "get" | "complete" | "list";

/** One MCP operation, as middleware sees it. */
export interface Operation {
  /** The JSON-RPC method: `tools/call`, `resources/read`, `prompts/get`, `completion/complete`, or a `…/list`. */
  readonly method: string;
  readonly kind: OperationKind;
  /** The tool or prompt name (`tools/call`, `prompts/get`). */
  readonly name?: string;
  /** The resource URI (`resources/read`). */
  readonly uri?: string;
  /** The arguments as the client sent them (before validation). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The request's params as they came: the client's word, never proof of anything (see `round`). */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * Set only on a 2026-07-28 retry whose sealed `requestState` the connection verified; never in the handshake era,
   * where `requestState` means nothing.
   */
  readonly round?: Round;
  readonly ctx: RequestContext;
  /** Abort the request: the handler's `ctx.signal` fires with `reason` (a timeout, say). */
  abort(reason: unknown): void;
}

/**
 * Runs around an operation: code before and after `next()`, a replaced result, or a throw to refuse (an `McpError`
 * reaches the client as itself; anything else as -32603). `next()` answers with the method's result: for a list,
 * `{ tools: [...] }` and the like, which a middleware may filter.
 * @example
 * ```ts source="examples/middleware.ts#Middleware"
 * server.use(async (op, next) => {
 *   const started = Date.now();
 *   try {
 *     return await next();
 *   } finally {
 *     log(op.method, Date.now() - started);
 *   }
 * });
 * ```
 */
export type Middleware = (
  operation: Operation,
  next: () => MaybePromise<Record<string, unknown>>,
) => MaybePromise<Record<string, unknown>>;

/** How a method's params name its target, for middleware. */
export function describeOperation(
  method: string,
  kind: OperationKind,
  params: Record<string, unknown> | undefined,
  ctx: RequestContext & { abort(reason: unknown): void },
): Operation {
  const given = params ?? {};
  const operation: { -readonly [K in keyof Operation]: Operation[K] } = {
    method,
    kind,
    params: given,
    ctx,
    abort: (reason) => ctx.abort(reason),
  };
  if (typeof given.name === "string" && kind !== "complete") {
    operation.name = given.name;
    // What middleware logs around a call or a prompt is that tool's or prompt's, as the handler's own log is.
    nameLogger(ctx, given.name);
  }
  if (typeof given.uri === "string") operation.uri = given.uri;
  if (isPlainObject(given.arguments)) operation.arguments = given.arguments;
  // Only the connection sets a context's round, after checking the seal; params are never looked at for it.
  const round = (ctx as { inputs?: InputRound }).inputs?.round;
  if (round !== undefined) operation.round = round;
  return operation;
}

// What a middleware answered, checked to be a result (a function made once, not per call).
function isResult(value: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new TypeError(
      `a middleware returned ${value === null ? "null" : typeof value}, not a result: return next() (or a result of its own)`,
    );
  }
  return value;
}

/** Run `last` inside the middleware, first registered outermost. Each `next` runs what is inside once. */
export function runMiddleware(
  middleware: readonly Middleware[],
  operation: Operation,
  last: () => MaybePromise<Record<string, unknown>>,
): MaybePromise<Record<string, unknown>> {
  return runFrom(middleware, 0, operation, last);
}

// The middleware from `index` in, then `last`: one closure per level, the `next` that level is given.
function runFrom(
  middleware: readonly Middleware[],
  index: number,
  operation: Operation,
  last: () => MaybePromise<Record<string, unknown>>,
): MaybePromise<Record<string, unknown>> {
  const current = middleware[index];
  if (current === undefined) return last();
  let called = false;
  const next = () => {
    if (called) throw new Error("a middleware called next() twice: the operation runs once");
    called = true;
    return runFrom(middleware, index + 1, operation, last);
  };
  return andThen(current(operation, next), isResult);
}

/** Run `serve` inside a definition's own middleware (its `use`), which sees the operation by `params`. */
export function runOwn<T extends object>(
  use: readonly Middleware[] | undefined,
  method: string,
  kind: OperationKind,
  params: Readonly<Record<string, unknown>>,
  ctx: RequestContext,
  serve: () => MaybePromise<T>,
): MaybePromise<T> {
  if (use === undefined || use.length === 0) return serve();
  const operation = describeOperation(method, kind, params, ctx as RequestContext & { abort(reason: unknown): void });
  return runMiddleware(use, operation, serve as () => MaybePromise<Record<string, unknown>>) as MaybePromise<T>;
}
