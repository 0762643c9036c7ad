import {
  audio,
  embeddedResource,
  image,
  type PromptDefinition,
  type Registered,
  type RequestContext,
  type SkillDefinition,
  type ToolDefinition,
  text,
} from "@toolsmith/core";
import { McpServer, type McpServerOptions, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";
import { DEFAULTS_FORM, ENUMS_FORM } from "./elicitation-schemas.js";
import { PNG, WAV } from "./media.js";
import { sleep } from "./sleep.js";
import { addTaskFixtures } from "./task-fixtures.js";

/** The resource whose subscribers hear `notifications/resources/updated`. */
export const WATCHED_URI = "test://watched-resource";

export interface ConformanceServerOptions {
  /** Tell subscribers of test://watched-resource it changed, this often (default: never). */
  watchIntervalMs?: number;
  /** Server options beyond the fixtures' own (an engine, a shared stateKey). */
  server?: McpServerOptions;
  /** The skills the skills extension's scenarios read (on Node: `readSkills(SKILLS_DIR)`, node-fixtures.ts). */
  skills?: readonly SkillDefinition[];
}

const NAME_FORM = { name: z.string() };

function sampledText(content: unknown): string {
  const block = Array.isArray(content) ? content[0] : content;
  const value = (block as { text?: unknown } | undefined)?.text;
  return typeof value === "string" ? value : "";
}

/**
 * Every fixture `@modelcontextprotocol/conformance` expects of a server, for requirement sets 2025-11-25 (handshake
 * era) and 2026-07-28 (stateless, answers through input_required), in one class; the tasks extension's fixtures
 * come from task-fixtures.ts, those only Node serves (skills from disk, a raw JSON Schema tool) from node-fixtures.ts.
 * @example
 * serveStdio(new ConformanceServer({ watchIntervalMs: 3000 }));
 */
export class ConformanceServer extends McpServer {
  name = "toolsmith-conformance-server";
  version = "1.0.0";
  // Registered once, disabled: enable and disable travel to every process of a cluster, a new registration would not.
  readonly #dynamicTool: Registered<ToolDefinition>;
  readonly #dynamicPrompt: Registered<PromptDefinition>;

  constructor(options: ConformanceServerOptions = {}) {
    super(options.server);
    this.#dynamicTool = this.toServer().tool({
      name: "test_dynamic_tool",
      description: "Listed while test_trigger_tool_change has turned it on",
      handler: () => "Dynamic tool called",
    });
    this.#dynamicTool.disable();
    this.#dynamicPrompt = this.toServer().prompt({
      name: "test_dynamic_prompt",
      description: "Listed while test_trigger_prompt_change has turned it on",
      handler: () => "This is a dynamic prompt.",
    });
    this.#dynamicPrompt.disable();
    addTaskFixtures(this.toServer());
    for (const skill of options.skills ?? []) this.toServer().skill(skill);
    if (options.watchIntervalMs !== undefined) {
      setInterval(() => this.toServer().resourceUpdated(WATCHED_URI), options.watchIntervalMs).unref();
    }
  }

  // ── Content ──

  @tool({ name: "test_simple_text", description: "Tests simple text content response" })
  simpleText() {
    return text("This is a simple text response for testing.");
  }

  @tool({ name: "test_image_content", description: "Tests image content response" })
  imageContent() {
    return image(PNG, "image/png");
  }

  @tool({ name: "test_audio_content", description: "Tests audio content response" })
  audioContent() {
    return audio(WAV, "audio/wav");
  }

  @tool({ name: "test_embedded_resource", description: "Tests embedded resource content response" })
  embeddedResource() {
    return embeddedResource("test://embedded-resource", "This is an embedded resource content.", {
      mimeType: "text/plain",
    });
  }

  @tool({
    name: "test_multiple_content_types",
    description: "Tests response with multiple content types (text, image, resource)",
  })
  multipleContentTypes() {
    return [
      text("Multiple content types test:"),
      image(PNG, "image/png"),
      embeddedResource("test://mixed-content-resource", '{"test":"data","value":123}', {
        mimeType: "application/json",
      }),
    ];
  }

  @tool({ name: "test_error_handling", description: "Tests error response handling" })
  errorHandling(): never {
    throw new Error("This tool intentionally returns an error for testing");
  }

  // ── Notifications while a request runs ──

  @tool({ name: "test_tool_with_logging", description: "Tests tool that emits log messages during execution" })
  async toolWithLogging(_args: Record<string, never>, ctx: RequestContext) {
    ctx.log.info("Tool execution started");
    await sleep(50, ctx.signal);
    ctx.log.info("Tool processing data");
    await sleep(50, ctx.signal);
    ctx.log.info("Tool execution completed");
    return "Tool with logging executed successfully";
  }

  @tool({ name: "test_tool_with_progress", description: "Tests tool that reports progress notifications" })
  async toolWithProgress(_args: Record<string, never>, ctx: RequestContext) {
    for (const done of [0, 50, 100]) {
      if (done > 0) await sleep(50, ctx.signal);
      ctx.progress(done, 100, `Completed step ${done} of 100`);
    }
    return String(ctx.meta?.progressToken);
  }

  @tool({ name: "test_logging_tool", description: "Diagnostic logging validator tool" })
  loggingTool(_args: Record<string, never>, ctx: RequestContext) {
    // The core drops this unless the request asked (2026-07-28 _meta logLevel, or logging/setLevel).
    ctx.log.info("Diagnostic trace logging activated");
    return "Logging evaluated";
  }

  @tool({ name: "test_streaming_elicitation", description: "Diagnostic tool validating response progress streams" })
  streamingElicitation(_args: Record<string, never>, ctx: RequestContext) {
    ctx.progress(50, 100);
    return "Streaming complete";
  }

  @tool({
    name: "test_custom_headers",
    description: "Routing headers (SEP-2243): region is mirrored as Mcp-Param-Region, which the transport checks",
    input: {
      region: z.string().meta({ description: "Where to run", "x-mcp-header": "Region" }),
      query: z.string().optional().describe("Not mirrored"),
    },
  })
  customHeaders({ region }: { region: string; query?: string }) {
    return `Region: ${region}`;
  }

  // ── List changes ──

  @tool({ name: "test_trigger_tool_change", description: "Lists or unlists test_dynamic_tool: tools/list changes" })
  triggerToolChange() {
    if (this.#dynamicTool.enabled) this.#dynamicTool.disable();
    else this.#dynamicTool.enable();
    return "Mutation triggered";
  }

  @tool({
    name: "test_trigger_prompt_change",
    description: "Lists or unlists test_dynamic_prompt: prompts/list changes",
  })
  triggerPromptChange() {
    if (this.#dynamicPrompt.enabled) this.#dynamicPrompt.disable();
    else this.#dynamicPrompt.enable();
    return "Mutation triggered";
  }

  // ── Asking the client: server→client requests in 2025-11-25, input_required in 2026-07-28 ──

  @tool({
    name: "test_sampling",
    description: "Tests server-initiated sampling (LLM completion request)",
    input: { prompt: z.string().describe("The prompt to send to the LLM") },
  })
  async sampling({ prompt }: { prompt: string }, ctx: RequestContext) {
    try {
      const answer = await ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
      });
      return `LLM response: ${sampledText(answer.content)}`;
    } catch (error) {
      return `Sampling not supported or error: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  @tool({
    name: "test_elicitation",
    description: "Tests server-initiated elicitation (user input request)",
    input: { message: z.string().describe("The message to show the user") },
  })
  async elicitation({ message }: { message: string }, ctx: RequestContext) {
    const answer = await ctx.elicit({
      message,
      schema: {
        username: z.string().describe("User's response"),
        email: z.string().describe("User's email address"),
      },
    });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @tool({
    name: "test_elicitation_sep1034_defaults",
    description: "Tests elicitation with default values per SEP-1034",
  })
  async elicitationDefaults(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.elicit({
      message: "Please review and update the form fields with defaults",
      requestedSchema: DEFAULTS_FORM,
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @tool({
    name: "test_elicitation_sep1330_enums",
    description: "Tests elicitation with enum schema improvements per SEP-1330",
  })
  async elicitationEnums(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.elicit({
      message: "Please select options from the enum fields",
      requestedSchema: ENUMS_FORM,
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @tool({ name: "test_missing_capability", description: "Test tool requiring sampling" })
  async missingCapability(_args: Record<string, never>, ctx: RequestContext) {
    // Without the client's sampling capability the core answers -32021 before anything is asked.
    await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "ping" } }], maxTokens: 10 });
    return "Success";
  }

  // ── MRTR (SEP-2322): the inputRequests keys are the ones the scenarios name ──

  @tool({
    name: "test_input_required_result_elicitation",
    description: "MRTR: returns InputRequiredResult with elicitation request",
  })
  async mrtrElicitation(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.elicit({ key: "user_name", message: "What is your name?", schema: NAME_FORM });
    return `Hello, ${answer.content?.name ?? "unknown"}!`;
  }

  @tool({
    name: "test_input_required_result_sampling",
    description: "MRTR: returns InputRequiredResult with sampling request",
  })
  async mrtrSampling(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.sample({
      key: "capital_question",
      messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
      maxTokens: 100,
    });
    return `Sampling result: ${sampledText(answer.content)}`;
  }

  @tool({
    name: "test_input_required_result_list_roots",
    description: "MRTR: returns InputRequiredResult with roots/list request",
  })
  async mrtrListRoots(_args: Record<string, never>, ctx: RequestContext) {
    const roots = await ctx.roots();
    return `Found ${roots.length} root(s)`;
  }

  @tool({
    name: "test_input_required_result_request_state",
    description: "MRTR: returns InputRequiredResult with requestState",
  })
  async mrtrRequestState(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.elicit({ key: "confirm", message: "Please confirm", schema: { ok: z.boolean() } });
    return answer.content?.ok === true ? "state-ok: requestState validated" : "state-ok: not confirmed";
  }

  @tool({
    name: "test_input_required_result_multiple_inputs",
    description: "MRTR: returns InputRequiredResult with multiple input requests",
  })
  async mrtrMultipleInputs(_args: Record<string, never>, ctx: RequestContext) {
    // Asked together, so one input_required round carries all three.
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit({ key: "user_name", message: "What is your name?", schema: NAME_FORM }),
      ctx.sample({
        key: "greeting",
        messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
        maxTokens: 50,
      }),
      ctx.roots(),
    ]);
    return `Name: ${name.content?.name ?? "unknown"}; Greeting: ${sampledText(greeting.content)}; Roots: ${roots.length}`;
  }

  @tool({
    name: "test_input_required_result_multi_round",
    description: "MRTR: multi-round InputRequiredResult workflow",
  })
  async mrtrMultiRound(_args: Record<string, never>, ctx: RequestContext) {
    const step1 = await ctx.elicit({ key: "step1", message: "Step 1: What is your name?", schema: NAME_FORM });
    const step2 = await ctx.elicit({
      key: "step2",
      message: "Step 2: What is your favorite color?",
      schema: { color: z.string() },
    });
    return `Multi-round complete for ${step1.content?.name ?? "friend"} who likes ${step2.content?.color ?? "nothing"}`;
  }

  @tool({
    name: "test_input_required_result_tampered_state",
    description: "MRTR: HMAC-signed requestState integrity test",
  })
  async mrtrTamperedState(_args: Record<string, never>, ctx: RequestContext) {
    // The core seals requestState with HMAC: an altered one is refused with -32602 before this runs again.
    await ctx.elicit({ key: "confirm", message: "Please confirm", schema: { ok: z.boolean() } });
    return "integrity-ok: state verified";
  }

  @tool({
    name: "test_input_required_result_capabilities",
    description: "MRTR: respects client capabilities in inputRequests",
  })
  async mrtrCapabilities(_args: Record<string, never>, ctx: RequestContext) {
    const asks: Promise<unknown>[] = [];
    const received: string[] = [];
    if (ctx.clientCapabilities.elicitation) {
      asks.push(
        ctx.elicit({ key: "elicit_input", message: "Elicitation input", schema: { value: z.string() } }).then(() => {
          received.push("elicit_input");
        }),
      );
    }
    if (ctx.clientCapabilities.sampling) {
      asks.push(
        ctx
          .sample({
            key: "sample_input",
            messages: [{ role: "user", content: { type: "text", text: "Sample request" } }],
            maxTokens: 50,
          })
          .then(() => {
            received.push("sample_input");
          }),
      );
    }
    if (asks.length === 0) return "No supported capabilities declared";
    await Promise.all(asks);
    return `capabilities-ok: received ${received.sort().join(",")}`;
  }

  // ── Resources ──

  @resource("test://static-text", {
    name: "static-text",
    title: "Static Text Resource",
    description: "A static text resource for testing",
    mimeType: "text/plain",
  })
  staticText() {
    return "This is the content of the static text resource.";
  }

  @resource("test://static-binary", {
    name: "static-binary",
    title: "Static Binary Resource",
    description: "A static binary resource (image) for testing",
    mimeType: "image/png",
  })
  staticBinary() {
    return { blob: PNG };
  }

  @resource("test://template/{id}/data", {
    name: "template",
    title: "Resource Template",
    description: "A resource template with parameter substitution",
    mimeType: "application/json",
  })
  templateData({ id }: { id: string }) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }

  @resource(WATCHED_URI, {
    name: "watched-resource",
    title: "Watched Resource",
    description: "A resource to subscribe to (resources/subscribe, or subscriptions/listen resourceSubscriptions)",
    mimeType: "text/plain",
  })
  watchedResource() {
    return "Watched resource content";
  }

  @resource("test://stateless-static-text", {
    name: "stateless-static-text",
    title: "Stateless Static Text",
    description: "A static text resource of the 2026-07-28 fixture",
    mimeType: "text/plain",
  })
  statelessStaticText() {
    return "Static text content from the stateless draft path.";
  }

  // ── Prompts ──

  @prompt({ name: "test_simple_prompt", title: "Simple Test Prompt", description: "A simple prompt without arguments" })
  simplePrompt() {
    return "This is a simple prompt for testing.";
  }

  @prompt({
    name: "test_prompt_with_arguments",
    title: "Prompt With Arguments",
    description: "A prompt with required arguments",
    args: {
      arg1: z.string().describe("First test argument"),
      arg2: z.string().describe("Second test argument"),
    },
    complete: {
      arg1: (value) => ["testValue1", "test", "example"].filter((candidate) => candidate.startsWith(value)),
    },
  })
  promptWithArguments({ arg1, arg2 }: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @prompt({
    name: "test_prompt_with_embedded_resource",
    title: "Prompt With Embedded Resource",
    description: "A prompt that includes an embedded resource",
    args: { resourceUri: z.string().describe("URI of the resource to embed") },
  })
  promptWithEmbeddedResource({ resourceUri }: { resourceUri: string }) {
    return [
      embeddedResource(resourceUri, "Embedded resource content for testing.", { mimeType: "text/plain" }),
      "Please process the embedded resource above.",
    ];
  }

  @prompt({
    name: "test_prompt_with_image",
    title: "Prompt With Image",
    description: "A prompt that includes image content",
  })
  promptWithImage() {
    return [image(PNG, "image/png"), "Please analyze the image above."];
  }

  @prompt({ name: "test_input_required_result_prompt", description: "MRTR: prompt that requires elicitation input" })
  async inputRequiredPrompt(_args: Record<string, never>, ctx: RequestContext) {
    const answer = await ctx.elicit({
      key: "user_context",
      message: "What context should the prompt use?",
      schema: { context: z.string() },
    });
    return `Prompt with context: ${answer.content?.context ?? ""}`;
  }
}
