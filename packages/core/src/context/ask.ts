import type { RevisionFeatures } from "../protocol/revision.js";
import { compileSchema } from "../schema/adapters.js";
import { checkRawForm, formFromJsonSchema } from "../schema/elicitation-form.js";
import { checkRawAnswer } from "../schema/form-answer.js";
import type { InputSchema } from "../schema/schema-adapter.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject, type RequestId } from "../wire/json-rpc.js";
import { answerAction, fittingContent } from "./elicit-answer.js";
import type { Keeper } from "./keep.js";

// Asking the client (elicitation, sampling, roots) in one API for both eras. Handshake era: a JSON-RPC request to
// the client, awaited. 2026-07-28: the question is recorded and the handler stops (InputRequired); the request is
// answered `input_required`, and the client's retry replays the handler with the answers in hand.

/** A form question: `schema` is a zod shape or object of primitive fields; the answer comes back typed and validated. */
export interface ElicitForm<S extends InputSchema = InputSchema> {
  mode?: "form";
  message: string;
  schema: S;
  /** The key of this question in a 2026-07-28 `inputRequests` map (default: `elicit-1`, `elicit-2`, … in call order). */
  key?: string;
}

/** A form question written as raw JSON Schema (a flat object of primitives); the content comes back unchecked. */
export interface ElicitRawForm {
  mode?: "form";
  message: string;
  requestedSchema: Record<string, unknown>;
  key?: string;
}

/** A URL question (2025-11-25+): the user completes something out of band, at `url`. */
export interface ElicitUrl {
  mode: "url";
  message: string;
  url: string;
  key?: string;
}

/** The user's answer: accepted with the validated content, or declined, or dismissed. */
export type ElicitResult<T> = { action: "accept"; content: T } | { action: "decline" | "cancel"; content?: undefined };

/** A `sampling/createMessage` request, as the spec has it (`tools`/`toolChoice` need the client's `sampling.tools`). */
export interface SampleRequest {
  messages: { role: "user" | "assistant"; content: Record<string, unknown> | Record<string, unknown>[] }[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: Record<string, unknown>;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  tools?: Record<string, unknown>[];
  toolChoice?: Record<string, unknown>;
  key?: string;
}

/** What the client's model answered. */
export interface SampleResult {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** A filesystem root the client shares. */
export interface Root {
  uri: string;
  name?: string;
}

/** What asking needs of the request it asks for (a RequestContextImpl has it all). */
export interface AskingContext {
  readonly requestId: RequestId;
  readonly revision: RevisionFeatures;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  readonly tag: unknown;
  readonly inputs: InputRound | undefined;
  /** Inside a task: how a question is put to the client (added to the task's `inputRequests`, awaited). */
  readonly asker?: Asker | undefined;
}

/** Puts a question to the client and resolves with its answer: a task's way of asking (no replay). */
export type Asker = (
  method: string,
  params: Record<string, unknown>,
  prefix: string,
  key: string | undefined,
) => Promise<Record<string, unknown>>;

/**
 * A 2026-07-28 retry's round, as the connection verified it: its `requestState` carried this server's seal, for
 * this method, target, arguments and caller, unexpired. A replayed state brings the same round again.
 */
export interface Round {
  /** Unique to the `requestState` that was issued: a replay of that state carries the same id. */
  readonly id: string;
  /** Which round of its request this retry answers: 1 for the retry after the first `input_required`. */
  readonly number: number;
  /** When that `requestState` expires (ms since the epoch); after it the retry is refused before middleware. */
  readonly expiresAt: number;
}

/** What asking needs from a connection in the handshake era. */
export interface AskPort {
  request(
    method: string,
    params: Record<string, unknown>,
    options: { relatedTo: RequestId; tag: unknown; signal: AbortSignal },
  ): Promise<Record<string, unknown>>;
}

/** One 2026-07-28 round: the answers known so far, and what this run asked that has no answer yet. */
export interface InputRound {
  readonly responses: Readonly<Record<string, unknown>>;
  /** The round this retry answers, once the connection verified its sealed requestState; else undefined. */
  readonly round?: Round | undefined;
  /** Made on the first question: a request that asks nothing allocates nothing. */
  asked: Record<string, { method: string; params: Record<string, unknown> }> | undefined;
  counters: Record<string, number> | undefined;
  /** What `ctx.keep` holds across this request's rounds: made on first use. */
  keeper: Keeper | undefined;
  /** The highest progress sent to the client in this request, earlier rounds included (keep.ts `reportedBefore`). */
  reported: number | undefined;
}

const NO_RESPONSES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/** A fresh round from the answers a request brought, the verified round it answers and what that round carried. */
export function inputRound(
  responses: Record<string, unknown> | undefined,
  round?: Round,
  keeper?: Keeper,
  reported?: number,
): InputRound {
  return { responses: responses ?? NO_RESPONSES, round, asked: undefined, counters: undefined, keeper, reported };
}

/**
 * Thrown through a handler, and the middleware around it, that asked what this round cannot answer: the dispatcher
 * answers `input_required`. It is no failure: a middleware that counts failures rethrows it uncounted.
 * @example
 * ```ts source="examples/middleware.ts#InputRequired"
 * let failures = 0;
 * server.use(async (_operation, next) => {
 *   try {
 *     return await next();
 *   } catch (error) {
 *     if (!(error instanceof InputRequired)) failures++;
 *     throw error;
 *   }
 * });
 * ```
 */
export class InputRequired {
  readonly name = "InputRequired";
  readonly message = "the request needs input from the client (answered as input_required)";
}

function missingCapability(what: string, requiredCapabilities: Record<string, unknown>): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `This request needs the client's ${what} capability, which the client did not declare`,
    { requiredCapabilities },
  );
}

function capability(ctx: AskingContext, name: string): Record<string, unknown> | undefined {
  const value = ctx.clientCapabilities[name];
  return isPlainObject(value) ? value : undefined;
}

function askClient(
  ctx: AskingContext,
  port: AskPort,
  method: string,
  params: Record<string, unknown>,
  prefix: string,
  key: string | undefined,
): Promise<Record<string, unknown>> {
  if (ctx.asker !== undefined) return ctx.asker(method, params, prefix, key);
  if (ctx.revision.askVia === "requests") {
    return port.request(method, params, { relatedTo: ctx.requestId, tag: ctx.tag, signal: ctx.signal });
  }
  const round = ctx.inputs;
  if (!round) {
    return Promise.reject(
      new Error(`${method} can be asked only while serving tools/call, prompts/get or resources/read`),
    );
  }
  round.counters ??= Object.create(null) as Record<string, number>;
  round.counters[prefix] = (round.counters[prefix] ?? 0) + 1;
  const at = key ?? `${prefix}-${round.counters[prefix]}`;
  if (Object.hasOwn(round.responses, at)) {
    const answer = round.responses[at];
    if (!isPlainObject(answer)) {
      return Promise.reject(new McpError(ErrorCode.InvalidParams, `inputResponses["${at}"] must be an object`));
    }
    return Promise.resolve(answer);
  }
  round.asked ??= Object.create(null) as NonNullable<InputRound["asked"]>;
  round.asked[at] = { method, params };
  return Promise.reject(new InputRequired());
}

async function elicit(
  ctx: AskingContext,
  port: AskPort,
  request: ElicitForm | ElicitRawForm | ElicitUrl,
): Promise<ElicitResult<unknown>> {
  const mode = request.mode ?? "form";
  const { revision } = ctx;
  if (!revision.elicitation.includes(mode)) {
    throw missingCapability(`elicitation (${mode} mode, not in protocol revision ${revision.version})`, {
      elicitation: mode === "url" ? { url: {} } : {},
    });
  }
  const declared = capability(ctx, "elicitation");
  // An empty elicitation capability means form mode only.
  const supports =
    declared !== undefined &&
    (mode === "url" ? isPlainObject(declared.url) : isPlainObject(declared.form) || !isPlainObject(declared.url));
  if (!supports)
    throw missingCapability(`elicitation (${mode} mode)`, { elicitation: mode === "url" ? { url: {} } : {} });

  if (request.mode === "url") {
    const params: Record<string, unknown> = { mode: "url", message: request.message, url: request.url };
    // 2025-11-25 pairs a URL question with an id its completion notification names; 2026-07-28 dropped both.
    if (revision.askVia === "requests") params.elicitationId = crypto.randomUUID();
    const answer = await askClient(ctx, port, "elicitation/create", params, "elicit", request.key);
    const action = answerAction(answer);
    return action === "accept" ? { action, content: undefined } : { action };
  }

  if ("requestedSchema" in request) {
    checkRawForm(request.requestedSchema);
    const params: Record<string, unknown> = { message: request.message, requestedSchema: request.requestedSchema };
    if (revision.elicitation.includes("url")) params.mode = "form";
    const answer = await askClient(ctx, port, "elicitation/create", params, "elicit", request.key);
    const action = answerAction(answer);
    if (action !== "accept") return { action };
    return {
      action,
      content: fittingContent(request.message, checkRawAnswer(request.requestedSchema, answer.content)),
    };
  }
  const form = request as ElicitForm;
  const compiled = compileSchema(form.schema, "input", "ctx.elicit schema");
  const params: Record<string, unknown> = {
    message: form.message,
    requestedSchema: formFromJsonSchema(compiled.jsonSchema),
  };
  if (revision.elicitation.includes("url")) params.mode = "form";
  const answer = await askClient(ctx, port, "elicitation/create", params, "elicit", form.key);
  const action = answerAction(answer);
  if (action !== "accept") return { action };
  const checked = await compiled.validate(isPlainObject(answer.content) ? answer.content : {});
  return { action, content: fittingContent(form.message, checked) };
}

async function sample(ctx: AskingContext, port: AskPort, request: SampleRequest): Promise<SampleResult> {
  const declared = capability(ctx, "sampling");
  if (!declared) throw missingCapability("sampling", { sampling: {} });
  const { key, ...params } = request;
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    if (!ctx.revision.samplingTools || !isPlainObject(declared.tools)) {
      throw missingCapability("sampling with tools", { sampling: { tools: {} } });
    }
  }
  const answer = await askClient(ctx, port, "sampling/createMessage", params as Record<string, unknown>, "sample", key);
  if (typeof answer.model !== "string" || (answer.role !== "user" && answer.role !== "assistant")) {
    throw new McpError(ErrorCode.InvalidParams, "The client's sampling answer has no role or model");
  }
  return answer as SampleResult;
}

async function roots(ctx: AskingContext, port: AskPort, key: string | undefined): Promise<Root[]> {
  if (!capability(ctx, "roots")) throw missingCapability("roots", { roots: {} });
  const answer = await askClient(ctx, port, "roots/list", {}, "roots", key);
  if (!Array.isArray(answer.roots))
    throw new McpError(ErrorCode.InvalidParams, "The client's roots answer has no roots list");
  return answer.roots.filter((root): root is Root => isPlainObject(root) && typeof root.uri === "string");
}

export const ask = { elicit, sample, roots };
