// Plain types of what the server sends out. Inbound shapes are checked by the zod schemas in wire.ts.

/** A program's identity on the wire: `serverInfo`, `clientInfo`. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** An icon a client may show for a server, tool, resource or prompt. */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/** Hints on a content block or resource: who it is for, how much it matters, when it changed. */
export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

/** A text content block. */
export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

/** An image content block: base64 data and its MIME type. */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

/** An audio content block: base64 data and its MIME type. */
export interface AudioContent {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

/** A content block that points at a resource without carrying it: the resource as `resources/list` shows it. */
export interface ResourceLink extends Resource {
  type: "resource_link";
}

/** A resource's contents as text. */
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}

/** A resource's contents as base64 bytes. */
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Record<string, unknown>;
}

/** A resource's contents, text or bytes. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A content block that carries a resource's contents. */
export interface EmbeddedResource {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

/** Any content block a tool result or prompt message may hold. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Hints about a tool's behaviour (read-only, destructive, idempotent, open-world); never trusted for security. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as `tools/list` shows it. */
export interface Tool {
  /** 1–64 characters of `A-Z a-z 0-9 _ . -`, unique on the server. */
  name: string;
  title?: string;
  /** What the tool does: the model's whole manual for it. Required. */
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** What `tools/call` answers: content, optional structured content, and whether it is an error. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A concrete resource as `resources/list` shows it. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** A resource template as `resources/templates/list` shows it. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** What `resources/read` answers. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Record<string, unknown>;
}

/** One argument of a prompt, as `prompts/list` shows it. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt as `prompts/list` shows it. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** One message of a prompt's result. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** What `prompts/get` answers. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
}

/** What the server tells the client it offers, in `initialize` or `server/discover`. */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, never>;
  completions?: Record<string, never>;
  /** 2025-11-25's tasks: `list`, `cancel`, and the requests that may be task-augmented (`requests.tools.call`). */
  tasks?: Readonly<Record<string, unknown>>;
  experimental?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}
