import { z } from "zod";
import { LOG_LEVELS } from "./log-levels.js";
import { MetaKey } from "./versions.js";

// Everything the server checks on the way in. Loose objects: unknown keys are allowed, never copied onto prototypes.
// Built on first use: a well-formed message never needs them (see the fast checks below), so start-up skips the work.

function build() {
  const plainObject = z.custom<Record<string, unknown>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    { message: "expected an object" },
  );
  const requestId = z.union([z.string(), z.number()]);
  const implementation = z.looseObject({ name: z.string(), version: z.string() });
  return {
    /** A JSON-RPC 2.0 request or notification as MCP allows it (params, when present, an object). */
    envelope: z.looseObject({
      jsonrpc: z.literal("2.0"),
      id: requestId.optional(),
      method: z.string(),
      params: plainObject.optional(),
    }),
    initializeParams: z.looseObject({
      protocolVersion: z.string(),
      capabilities: plainObject,
      clientInfo: implementation,
    }),
    /** 2026-07-28 `params._meta`: the version and capabilities are required on every request. */
    requestMeta: z.looseObject({
      [MetaKey.protocolVersion]: z.string(),
      [MetaKey.clientCapabilities]: plainObject,
      [MetaKey.clientInfo]: implementation.optional(),
      [MetaKey.logLevel]: z.enum(LOG_LEVELS).optional(),
      progressToken: requestId.optional(),
    }),
    paginatedParams: z.looseObject({ cursor: z.string().optional() }),
    callToolParams: z.looseObject({ name: z.string(), arguments: plainObject.optional() }),
    readResourceParams: z.looseObject({ uri: z.string() }),
    getPromptParams: z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.string()).optional() }),
    cancelledParams: z.looseObject({ requestId, reason: z.string().optional() }),
    completeParams: z.looseObject({
      ref: z.looseObject({ type: z.string(), name: z.string().optional(), uri: z.string().optional() }),
      argument: z.looseObject({ name: z.string(), value: z.string() }),
      context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
    }),
    listenParams: z.looseObject({
      notifications: z
        .looseObject({
          toolsListChanged: z.boolean().optional(),
          promptsListChanged: z.boolean().optional(),
          resourcesListChanged: z.boolean().optional(),
          resourceSubscriptions: z.array(z.string()).optional(),
          taskIds: z.array(z.string()).optional(),
        })
        .optional(),
    }),
  };
}

/** zod issues as one line: `path: message; …`, the first 20 of them (a client's value may break a rule a million times). */
export function issuesText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const text = issues
    .slice(0, 20)
    .map((issue) => `${issue.path.map(String).join(".") || "params"}: ${issue.message}`)
    .join("; ");
  return issues.length > 20 ? `${text}; and ${issues.length - 20} more` : text;
}

type Schemas = ReturnType<typeof build>;
let built: Schemas | undefined;

/** The inbound zod schemas, built once on first use. */
export function schemas(): Schemas {
  built ??= build();
  return built;
}

export type Envelope = z.output<Schemas["envelope"]>;
export type RequestMeta = z.output<Schemas["requestMeta"]>;
export type InitializeParams = z.output<Schemas["initializeParams"]>;

// The hot path: a fast check per schema that accepts exactly what the schema accepts (inbound.test.ts checks that
// they agree), so a well-formed message costs a few type checks; zod runs only to explain a rejection.

/** A zod schema with a fast check (`accepts`) that agrees with it. */
export interface Inbound<T> {
  readonly schema: () => z.ZodType<T>;
  readonly accepts: (value: unknown) => boolean;
}

type Checked<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/** `schema.safeParse`, without zod's work when the fast check already accepts the value. */
export function check<T>(inbound: Inbound<T>, value: unknown): Checked<T> {
  if (inbound.accepts(value)) return { success: true, data: value as T };
  const parsed = inbound.schema().safeParse(value);
  return parsed.success ? { success: true, data: parsed.data } : { success: false, error: parsed.error };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): boolean {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function isImplementation(value: unknown): boolean {
  return isObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

const LEVELS: ReadonlySet<unknown> = new Set(LOG_LEVELS);

export const Envelope: Inbound<Envelope> = {
  schema: () => schemas().envelope,
  accepts: (value) =>
    isObject(value) &&
    value.jsonrpc === "2.0" &&
    typeof value.method === "string" &&
    (value.id === undefined || isId(value.id)) &&
    (value.params === undefined || isObject(value.params)),
};

export const RequestMeta: Inbound<RequestMeta> = {
  schema: () => schemas().requestMeta,
  accepts: (value) =>
    isObject(value) &&
    typeof value[MetaKey.protocolVersion] === "string" &&
    isObject(value[MetaKey.clientCapabilities]) &&
    (value[MetaKey.clientInfo] === undefined || isImplementation(value[MetaKey.clientInfo])) &&
    (value[MetaKey.logLevel] === undefined || LEVELS.has(value[MetaKey.logLevel])) &&
    (value.progressToken === undefined || isId(value.progressToken)),
};

/** `initialize`'s params: checked without zod, so a handshake-era server's opening builds no schema. */
export const InitializeParams: Inbound<InitializeParams> = {
  schema: () => schemas().initializeParams,
  accepts: (value) =>
    isObject(value) &&
    typeof value.protocolVersion === "string" &&
    isObject(value.capabilities) &&
    isImplementation(value.clientInfo),
};

export const PaginatedParams: Inbound<z.output<Schemas["paginatedParams"]>> = {
  schema: () => schemas().paginatedParams,
  accepts: (value) => isObject(value) && (value.cursor === undefined || typeof value.cursor === "string"),
};

export const CallToolParams: Inbound<z.output<Schemas["callToolParams"]>> = {
  schema: () => schemas().callToolParams,
  accepts: (value) =>
    isObject(value) && typeof value.name === "string" && (value.arguments === undefined || isObject(value.arguments)),
};

export const ReadResourceParams: Inbound<z.output<Schemas["readResourceParams"]>> = {
  schema: () => schemas().readResourceParams,
  accepts: (value) => isObject(value) && typeof value.uri === "string",
};

export const GetPromptParams: Inbound<z.output<Schemas["getPromptParams"]>> = {
  schema: () => schemas().getPromptParams,
  accepts: (value) =>
    isObject(value) &&
    typeof value.name === "string" &&
    (value.arguments === undefined ||
      (isObject(value.arguments) &&
        // zod's record skips a "__proto__" key (never copying it); so does the fast check.
        Object.entries(value.arguments).every(([key, arg]) => key === "__proto__" || typeof arg === "string"))),
};

export const CompleteParams: Inbound<z.output<Schemas["completeParams"]>> = {
  schema: () => schemas().completeParams,
  accepts: () => false,
};

export const ListenParams: Inbound<z.output<Schemas["listenParams"]>> = {
  schema: () => schemas().listenParams,
  accepts: () => false,
};
