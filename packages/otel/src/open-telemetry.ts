import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { ErrorCode, isMcpError, type RequestContext } from "@toolsmith/core";
import { isEngineUnavailable } from "@toolsmith/core/engine";
import { InputRequired, type Middleware, type Operation } from "@toolsmith/core/middleware";

/** The instrumentation scope's name: what spans made by this middleware are attributed to. */
export const INSTRUMENTATION_NAME = "@toolsmith/otel";

/** How `openTelemetry` traces. */
export interface OpenTelemetryOptions {
  /** The tracer to make spans with; default: one from `tracerProvider`. */
  tracer?: Tracer;
  /** Where the tracer comes from; default: the globally registered provider (`trace.setGlobalTracerProvider`). */
  tracerProvider?: TracerProvider;
  /**
   * Record a `resources/read`'s URI as `mcp.resource.uri` (the conventions require it; default true). A URI is
   * user data: set false when yours carry what traces must not. It is never part of the span's name.
   */
  resourceUri?: boolean;
  /**
   * Attributes of your own for an operation's span, set when it starts (so samplers see them). A hook that throws
   * is ignored: tracing never changes what the client gets.
   */
  attributes?: (operation: Operation) => Attributes | undefined;
}

// The request's _meta as a carrier: the W3C keys only as ctx.trace validated them, other string entries as sent
// (for a custom propagator's own keys, which it checks as it would an HTTP header).
const META_GETTER: TextMapGetter<RequestContext> = {
  keys: (ctx) => Object.keys(ctx.meta ?? {}),
  get: (ctx, key) => {
    if (key === "traceparent" || key === "tracestate" || key === "baggage") return ctx.trace?.[key];
    const value = ctx.meta?.[key];
    return typeof value === "string" ? value : undefined;
  },
};

/**
 * OpenTelemetry tracing as middleware: one SERVER span per operation the server's middleware sees (`tools/call`,
 * `resources/read`, `prompts/get`, `completion/complete`, each `…/list`), named and attributed per the OpenTelemetry
 * semantic conventions for MCP. The span continues the client's trace: its parent is what the globally registered
 * propagator extracts from the request's `_meta` (`ctx.trace`); the operation runs inside the span's context, so
 * spans the handler makes nest under it.
 * @example
 * ```ts source="examples/open-telemetry.ts#openTelemetry"
 * server.use(openTelemetry());
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Middleware {
  // A proxy tracer: it follows a global provider registered after this call.
  const tracer = options.tracer ?? (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_NAME);
  const recordUri = options.resourceUri !== false;
  const hook = options.attributes;
  return (operation, next) => {
    let span: Span;
    let parent: Context;
    try {
      const ambient = context.active();
      parent = parentOf(ambient, operation.ctx);
      const attributes = attributesOf(operation, recordUri);
      if (hook !== undefined) addOwn(attributes, hook, operation);
      const links = ambientLink(ambient, parent);
      const options = { kind: SpanKind.SERVER, attributes };
      span = tracer.startSpan(spanName(operation), links === undefined ? options : { ...options, links }, parent);
      // The handler's own spans ask it for their parent: one that cannot answer must not reach them.
      span.spanContext();
    } catch {
      // A tracer's failure is its own: the operation runs as it would untraced.
      return next();
    }
    const end = ender(span);
    let ran = false;
    let result: ReturnType<typeof next>;
    try {
      result = context.with(trace.setSpan(parent, span), () => {
        ran = true;
        return next();
      });
    } catch (error) {
      // The context manager failed before the operation ran: it runs untraced, its span closed unmarked.
      if (!ran) {
        end((open) => open.end());
        return next();
      }
      end((open) => failed(open, error));
      throw error;
    }
    if (!(result instanceof Promise)) {
      end((open) => succeeded(open, result));
      return result;
    }
    // A handler may never settle (it ignores its aborted signal): the span ends when its request is abandoned.
    const { signal } = operation.ctx;
    if (signal.aborted) end((open) => abandoned(open, signal.reason));
    const onAbort = () => end((open) => abandoned(open, signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    return result.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        end((open) => succeeded(open, value));
        return value;
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        end((open) => failed(open, error));
        throw error;
      },
    );
  };
}

// The client's context from _meta (2026-07-28 requests always carry it); a propagator's failure leaves the ambient.
function parentOf(ambient: Context, ctx: RequestContext): Context {
  if (ctx.meta === undefined) return ambient;
  try {
    return propagation.extract(ambient, ctx, META_GETTER);
  } catch {
    return ambient;
  }
}

// The span's one ending, by whichever comes first; what the tracer throws there never reaches the client.
function ender(span: Span): (how: (span: Span) => void) => void {
  let open = true;
  return (how) => {
    if (!open) return;
    open = false;
    try {
      how(span);
    } catch {
      // Tracing never changes what the client gets.
    }
  };
}

// `{mcp.method.name} {target}`: the tool or prompt name; a resource's URI is high-cardinality user data, never.
function spanName(operation: Operation): string {
  const target = targetOf(operation);
  return target === undefined ? operation.method : `${operation.method} ${target}`;
}

function targetOf(operation: Operation): string | undefined {
  if (operation.method === "tools/call" || operation.method === "prompts/get") return operation.name;
  if (operation.method === "completion/complete") {
    const ref = operation.params.ref as { type?: unknown; name?: unknown } | undefined;
    if (ref?.type === "ref/prompt" && typeof ref.name === "string") return ref.name;
  }
  return undefined;
}

function attributesOf(operation: Operation, recordUri: boolean): Attributes {
  const { ctx } = operation;
  const attributes: Attributes = {
    "mcp.method.name": operation.method,
    "mcp.protocol.version": ctx.protocolVersion,
    "jsonrpc.request.id": String(ctx.requestId),
  };
  const target = targetOf(operation);
  if (operation.method === "tools/call" && target !== undefined) {
    attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (target !== undefined) {
    attributes["gen_ai.prompt.name"] = target;
  }
  if (recordUri && operation.uri !== undefined) attributes["mcp.resource.uri"] = operation.uri;
  return attributes;
}

function addOwn(attributes: Attributes, hook: (operation: Operation) => Attributes | undefined, op: Operation): void {
  try {
    const own: unknown = hook(op);
    // Only an object's own entries: a string's characters are no attributes.
    if (typeof own === "object" && own !== null) Object.assign(attributes, own);
  } catch {
    // The hook's failure is its own: the operation runs as it would untraced.
  }
}

// The conventions: the _meta context is the parent, and the ambient one (an HTTP server span, say) a link.
function ambientLink(ambient: Context, parent: Context): Link[] | undefined {
  const around = trace.getSpanContext(ambient);
  if (around === undefined || !trace.isSpanContextValid(around)) return undefined;
  return trace.getSpanContext(parent) === around ? undefined : [{ context: around }];
}

function succeeded(span: Span, result: Record<string, unknown>): void {
  // A tool's own failure: a result, not a JSON-RPC error (the conventions' `tool_error`).
  if (result.isError === true) {
    span.setAttribute("error.type", "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

// The request was cancelled, timed out or lost its connection before the operation settled.
function abandoned(span: Span, reason: unknown): void {
  const timedOut = reason instanceof Error && reason.name === "TimeoutError";
  span.setAttribute("error.type", timedOut ? "timeout" : "cancelled");
  span.setStatus({ code: SpanStatusCode.ERROR, message: timedOut ? reason.message : "The request was abandoned" });
  span.end();
}

function failed(span: Span, error: unknown): void {
  // 2026-07-28: a question for the client ends this round as input_required, which is no failure.
  if (error instanceof InputRequired) {
    span.end();
    return;
  }
  let code: number = ErrorCode.InternalError;
  let message = "Internal error";
  if (isMcpError(error)) {
    code = error.code;
    message = error.message;
  } else {
    if (isEngineUnavailable(error)) code = ErrorCode.ServerError;
    // What the wire never says (the generic -32603's cause) is the server's own to see.
    span.recordException(error instanceof Error ? error : String(error));
  }
  span.setAttributes({ "error.type": String(code), "rpc.response.status_code": String(code) });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}
