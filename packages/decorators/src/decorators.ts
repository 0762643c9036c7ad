import type {
  AnySchema,
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Infer,
  InferInput,
  InputSchema,
  MaybePromise,
  RequestContext,
} from "@toolsmith/core";
import type { CompleteNamed, GuardNamed, ListNamed, NoArguments, ToolsmithDecorator } from "./decorator-types.js";
import { methodDecorator } from "./method-decorator.js";
import type {
  CompleteOption,
  PromptOptions,
  ResourceOptions,
  SkillFiles,
  SkillOptions,
  ToolOptions,
} from "./registry.js";
import type { IsTemplate, TemplateVariables } from "./template-types.js";

/**
 * The arguments a decorated method receives for an `input` (or a prompt's `args`), zod object or raw shape: the
 * parsed values, defaults filled in. Keep the schema in a constant and type the parameter from it.
 * @example
 * ```ts source="examples/decorators.ts#Args"
 * const Booking = z.object({ from: z.string(), to: z.string(), seats: z.number().default(1) });
 * class Desk extends McpServer {
 *   @tool({ description: "Book a seat", input: Booking })
 *   book({ from, to, seats }: Args<typeof Booking>) {
 *     return `${seats} × ${from}–${to}`;
 *   }
 * }
 * ```
 *   @tool({ description: "Book a seat", input: Booking })
 *   book({ from, to, seats }: Args<typeof Booking>) { return `${seats} × ${from}–${to}`; }
 * }
 */
export type Args<I extends InputSchema> = InferInput<I>;

/** A tool method's parameters: the arguments, typed from `input`, then the request context. */
export type ToolParams<I> = [args: [I] extends [undefined] ? NoArguments : InferInput<I>, ctx: RequestContext];

/** Under legacy decorators, a tool without `input` may instead declare a schema class as its parameter. */
export type LegacyToolParams<I> = [I] extends [undefined]
  ? // biome-ignore lint/suspicious/noExplicitAny: LegacyCheck narrows it to a schema class or no arguments.
    [args: any, ctx: RequestContext]
  : ToolParams<I>;

type LegacyModeOf<I> = [I] extends [undefined] ? "schema-class" : "plain";

/** What a tool method may return: anything, or with `output`, the output's type or a whole result. */
export type ToolResult<O> = [O] extends [undefined] ? unknown : MaybePromise<Infer<O> | CallToolResult>;

/** A resource method's parameters: the context for a fixed URI; the variables, then the context, for a template. */
export type ResourceParams<U extends string, I> = string extends U
  ? [variablesOrContext: never, ctx?: RequestContext]
  : IsTemplate<U> extends true
    ? [variables: [I] extends [undefined] ? TemplateVariables<U> : InferInput<I>, ctx: RequestContext]
    : [ctx: RequestContext];

/** A prompt method's parameters: the arguments, typed from `args`, then the request context. */
export type PromptParams<A> = [args: [A] extends [undefined] ? NoArguments : InferInput<A>, ctx: RequestContext];

type PromptMessageLike = string | ContentBlock | { role: "user" | "assistant"; content: string | ContentBlock };

/** What a prompt method may return: a string, a message, messages, or a whole result. */
export type PromptResult = MaybePromise<PromptMessageLike | PromptMessageLike[] | GetPromptResult>;

/**
 * Publish a method as a tool. Its name defaults to the method's; its first parameter is typed from `input`,
 * and with `output` its return type from that. `guard` may name a method of the class.
 * @example
 * ```ts source="examples/decorators.ts#tool"
 * class Calc extends McpServer {
 *   @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
 *   add({ a, b }: { a: number; b: number }) {
 *     return a + b;
 *   }
 * }
 * ```
 *   @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
 *   add({ a, b }: { a: number; b: number }) { return a + b; }
 * }
 */
export function tool<
  I extends InputSchema | undefined = undefined,
  O extends AnySchema | undefined = undefined,
  const G extends string = never,
>(options: ToolOptions<I, G> & { output?: O }): ToolDecorator<I, O, G> {
  return methodDecorator("tool", (key, legacy) => ({
    kind: "tool",
    key,
    options: options as ToolOptions,
    ...(legacy?.paramSchema && options.input === undefined ? { paramSchema: legacy.paramSchema as never } : {}),
    ...(legacy?.noMetadata && options.input === undefined ? { noMetadata: true } : {}),
  })) as ToolDecorator<I, O, G>;
}

type ToolDecorator<I, O, G extends string> = ToolsmithDecorator<
  ToolParams<I>,
  LegacyToolParams<I>,
  ToolResult<O>,
  LegacyModeOf<I>,
  GuardNamed<NoInfer<G>>
>;

type ResourceDecorator<U extends string, I, L extends string, C, G extends string> = ToolsmithDecorator<
  ResourceParams<U, I>,
  ResourceParams<U, I>,
  unknown,
  "plain",
  ListNamed<NoInfer<L>> | CompleteNamed<NoInfer<C>> | GuardNamed<NoInfer<G>>
>;

/**
 * Publish a method as a resource at a fixed URI (the method gets the context), or as an RFC 6570 template
 * (the method gets the variables, typed from the template or from `input`, then the context). `list`, each
 * `complete` entry and `guard` may name a method of the class, which then runs with `this` the instance.
 * @example
 * ```ts source="examples/decorators.ts#resource"
 * class Notes extends McpServer {
 *   notes = new Map<string, string>();
 *   @resource("notes://{id}", { description: "One note", list: "listNotes", complete: { id: "noteIds" } })
 *   note({ id }: { id: string }) {
 *     return this.notes.get(id);
 *   }
 *   listNotes() {
 *     return [...this.notes.keys()].map((id) => ({ uri: `notes://${id}`, name: id }));
 *   }
 *   noteIds(value: string) {
 *     return [...this.notes.keys()].filter((id) => id.startsWith(value));
 *   }
 * }
 * ```
 *   @resource("notes://{id}", { description: "One note", list: "listNotes", complete: { id: "noteIds" } })
 *   note({ id }: { id: string }) { return this.notes.get(id); }
 *   listNotes() { return [...this.notes.keys()].map((id) => ({ uri: `notes://${id}`, name: id })); }
 *   noteIds(value: string) { return [...this.notes.keys()].filter((id) => id.startsWith(value)); }
 * }
 */
export function resource<
  const U extends string,
  I extends InputSchema | undefined = undefined,
  const L extends string = never,
  const C extends CompleteOption = Record<never, never>,
  const G extends string = never,
>(uri: U, options: ResourceOptions<I, L, C, G> = {}): ResourceDecorator<U, I, L, C, G> {
  return methodDecorator("resource", (key) => ({
    kind: "resource",
    key,
    uri,
    options: options as ResourceOptions,
  })) as ResourceDecorator<U, I, L, C, G>;
}

type PromptDecorator<A, C, G extends string> = ToolsmithDecorator<
  PromptParams<A>,
  PromptParams<A>,
  PromptResult,
  "plain",
  CompleteNamed<NoInfer<C>> | GuardNamed<NoInfer<G>>
>;

/**
 * Publish a method as a prompt; zod string schemas in `args` become its arguments. Each `complete` entry and
 * `guard` may name a method of the class.
 * @example
 * ```ts source="examples/decorators.ts#prompt"
 * class Notes extends McpServer {
 *   @prompt({ description: "Summarise notes", args: { topic: z.string() }, complete: { topic: "topics" } })
 *   summarise({ topic }: { topic: string }) {
 *     return `Summarise my notes on ${topic}`;
 *   }
 *   topics(value: string) {
 *     return ["work", "home"].filter((topic) => topic.startsWith(value));
 *   }
 * }
 * ```
 *   @prompt({ description: "Summarise notes", args: { topic: z.string() }, complete: { topic: "topics" } })
 *   summarise({ topic }: { topic: string }) { return `Summarise my notes on ${topic}`; }
 *   topics(value: string) { return ["work", "home"].filter((topic) => topic.startsWith(value)); }
 * }
 */
export function prompt<
  A extends InputSchema | undefined = undefined,
  const C extends CompleteOption = Record<never, never>,
  const G extends string = never,
>(options: PromptOptions<A, C, G> = {}): PromptDecorator<A, C, G> {
  return methodDecorator("prompt", (key) => ({
    kind: "prompt",
    key,
    options: options as PromptOptions,
  })) as PromptDecorator<A, C, G>;
}

type SkillDecorator<G extends string> = ToolsmithDecorator<[], [], SkillFiles, "plain", GuardNamed<NoInfer<G>>>;

/**
 * Publish a skill (the skills extension, `io.modelcontextprotocol/skills`) at `path`, whose last segment is its name:
 * the method returns its files, or `readSkill(…)` of its folder (`@toolsmith/skills`), and runs once, when the server
 * is built. `guard` may name a method of the class.
 * @example
 * ```ts source="examples/decorators.ts#skill"
 * class Docs extends McpServer {
 *   @skill("git-workflow")
 *   gitWorkflow() {
 *     return {
 *       "SKILL.md": "---\nname: git-workflow\ndescription: Branch and commit as we do\n---\nBranch from main.\n",
 *     };
 *   }
 * }
 * ```
 */
export function skill<const G extends string = never>(path: string, options: SkillOptions<G> = {}): SkillDecorator<G> {
  return methodDecorator("skill", (key) => ({
    kind: "skill",
    key,
    path,
    options: options as SkillOptions,
  })) as SkillDecorator<G>;
}
