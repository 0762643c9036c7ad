import { z } from "zod";
import { MetaKey } from "./protocol.js";

// Everything the server checks on the way in. Loose objects: unknown keys are allowed, never copied onto prototypes.

const plainObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { message: "expected an object" },
);

export const RequestIdSchema = z.union([z.string(), z.number()]);

/** A JSON-RPC 2.0 request or notification as MCP allows it (params, when present, an object). */
export const EnvelopeSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema.optional(),
  method: z.string(),
  params: plainObject.optional(),
});

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
});

export const InitializeParamsSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: plainObject,
  clientInfo: ImplementationSchema,
});

export const LoggingLevelSchema = z.enum([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

/** 2026-07-28 `params._meta`: the version and capabilities are required on every request. */
export const RequestMetaSchema = z.looseObject({
  [MetaKey.protocolVersion]: z.string(),
  [MetaKey.clientCapabilities]: plainObject,
  [MetaKey.clientInfo]: ImplementationSchema.optional(),
  [MetaKey.logLevel]: LoggingLevelSchema.optional(),
  progressToken: RequestIdSchema.optional(),
});

export const PaginatedParamsSchema = z.looseObject({
  cursor: z.string().optional(),
});

export const CallToolParamsSchema = z.looseObject({
  name: z.string(),
  arguments: plainObject.optional(),
});

export const ReadResourceParamsSchema = z.looseObject({
  uri: z.string(),
});

export const GetPromptParamsSchema = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
});

export const CancelledParamsSchema = z.looseObject({
  requestId: RequestIdSchema,
  reason: z.string().optional(),
});

export type Envelope = z.output<typeof EnvelopeSchema>;
export type RequestMeta = z.output<typeof RequestMetaSchema>;
export type InitializeParams = z.output<typeof InitializeParamsSchema>;
