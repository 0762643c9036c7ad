import {
  type Client,
  type Prompt,
  ProtocolError,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from "@modelcontextprotocol/client";
import {
  ErrorCode,
  McpError,
  type PromptDefinition,
  type RequestContext,
  type ResourceTemplateDefinition,
  type StaticResourceDefinition,
} from "@toolsmith/core";
import { type Forwarding, type ForwardOptions, forward } from "./forward.js";
import type { Link } from "./link.js";
import { passThrough } from "./pass-through.js";

// The remote's prompts, resources and templates as definitions: gets and reads forwarded; the remote's own JSON-RPC
// error passes through with its code, any other failure is -32000 naming the remote.

async function forwarded<T>(
  link: Link,
  ctx: RequestContext,
  via: Forwarding,
  request: (client: Client, options: ForwardOptions) => Promise<T>,
): Promise<T> {
  try {
    return await forward(link, ctx, via, request);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const cause = (error as Error).cause;
    if (ProtocolError.isInstance(cause)) throw new McpError(cause.code, cause.message, cause.data);
    throw new McpError(ErrorCode.ServerError, (error as Error).message);
  }
}

/** Completions of a remote prompt's argument or template's variable, forwarded. */
function completer(
  link: Link,
  via: Forwarding,
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
  name: string,
) {
  return async (value: string, context: { arguments: Readonly<Record<string, string>>; ctx: RequestContext }) => {
    const result = await forwarded(link, context.ctx, via, (client, { meta, ...options }) =>
      client.complete(
        { ref, argument: { name, value }, context: { arguments: { ...context.arguments } }, _meta: meta },
        options,
      ),
    );
    return result.completion;
  };
}

export function promptDefinition(link: Link, prompt: Prompt, via: Forwarding, completes: boolean): PromptDefinition {
  const args = prompt.arguments ?? [];
  const schema = {
    type: "object",
    properties: Object.fromEntries(
      args.map((arg) => [arg.name, { type: "string", ...(arg.description ? { description: arg.description } : {}) }]),
    ),
    required: args.filter((arg) => arg.required).map((arg) => arg.name),
  };
  const ref = { type: "ref/prompt" as const, name: prompt.name };
  return {
    name: prompt.name,
    ...(prompt.title === undefined ? {} : { title: prompt.title }),
    ...(prompt.description === undefined ? {} : { description: prompt.description }),
    ...(args.length > 0 ? { args: passThrough(schema) as never } : {}),
    ...(completes && args.length > 0
      ? { complete: Object.fromEntries(args.map((arg) => [arg.name, completer(link, via, ref, arg.name)])) }
      : {}),
    handler: (values: unknown, ctx: RequestContext) =>
      forwarded(link, ctx, via, (client, { meta, ...options }) =>
        client.getPrompt(
          { name: prompt.name, arguments: (values ?? {}) as Record<string, string>, _meta: meta },
          options,
        ),
      ),
  };
}

function read(link: Link, via: Forwarding, uri: string, ctx: RequestContext) {
  return forwarded(link, ctx, via, (client, { meta, ...options }) =>
    client.readResource({ uri, _meta: meta }, { ...options, cacheMode: "bypass" }),
  );
}

/** Subscribes a URI on the remote until the returned stop (updates.ts). */
type Watch = (uri: string) => () => void;

export function resourceDefinition(
  link: Link,
  resource: Resource,
  via: Forwarding,
  watch: Watch,
): StaticResourceDefinition {
  const { uri, name, title, description, mimeType } = resource;
  return {
    uri,
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
    watch,
    handler: (ctx) => read(link, via, uri, ctx),
  };
}

export function templateDefinition(
  link: Link,
  template: ResourceTemplate,
  via: Forwarding,
  completes: boolean,
  watch: Watch,
): ResourceTemplateDefinition {
  const { uriTemplate, name, title, description, mimeType } = template;
  const variables = [...uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) =>
    (m[1] ?? "").split(",").map((v: string) => v.replace(/[*]|:\d+$/g, "")),
  );
  const ref = { type: "ref/resource" as const, uri: uriTemplate };
  return {
    uriTemplate,
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(completes && variables.length > 0
      ? { complete: Object.fromEntries(variables.map((v) => [v, completer(link, via, ref, v)])) }
      : {}),
    watch,
    handler: (_variables, ctx, uri) => read(link, via, uri, ctx),
  };
}
