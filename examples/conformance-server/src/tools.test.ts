import { LOG_LEVEL_META_KEY, ProtocolError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
// Plain data modules (no decorators), safe to load from src.
import { DEFAULTS_FORM, ENUMS_FORM } from "./elicitation-schemas.js";
import { PNG, WAV } from "./media.js";
import { connect, ERAS, firstText, waitFor } from "./peer.test-util.js";

const TOOLS = [
  "test_simple_text",
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_error_handling",
  "test_tool_with_logging",
  "test_tool_with_progress",
  "test_logging_tool",
  "test_streaming_elicitation",
  "test_trigger_tool_change",
  "test_trigger_prompt_change",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  "test_missing_capability",
  "test_custom_headers",
  "json_schema_2020_12_tool",
  "test_input_required_result_elicitation",
  "test_input_required_result_sampling",
  "test_input_required_result_list_roots",
  "test_input_required_result_request_state",
  "test_input_required_result_multiple_inputs",
  "test_input_required_result_multi_round",
  "test_input_required_result_tampered_state",
  "test_input_required_result_capabilities",
  // The tasks extension's fixtures (task-fixtures.ts).
  "greet",
  "slow_compute",
  "failing_job",
  "protocol_error_job",
  "confirm_delete",
  "multi_input",
  "test_tool_with_task",
];

describe.each(ERAS)("tools over stdio with the official client (%s)", (_era, mode) => {
  it("lists every fixture tool with a valid name, a description and an object inputSchema", async () => {
    const { client, close } = await connect(mode);
    try {
      const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
      expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
      for (const tool of tools) {
        expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/);
        expect(tool.description?.length, tool.name).toBeGreaterThan(0);
        expect(tool.inputSchema.type, tool.name).toBe("object");
        expect(Object.keys(tool.inputSchema).length, tool.name).toBeGreaterThan(0);
      }
      expect(tools.find((tool) => tool.name === "test_sampling")?.inputSchema).toMatchObject({
        properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
        required: ["prompt"],
      });
    } finally {
      await close();
    }
  });

  it("answers the content tools exactly", async () => {
    const { client, close } = await connect(mode);
    try {
      const call = async (name: string) => {
        const { content, isError } = await client.callTool({ name });
        return { content, isError };
      };
      expect(await call("test_simple_text")).toMatchObject({
        content: [{ type: "text", text: "This is a simple text response for testing." }],
      });
      expect((await call("test_image_content")).content).toEqual([{ type: "image", data: PNG, mimeType: "image/png" }]);
      expect((await call("test_audio_content")).content).toEqual([{ type: "audio", data: WAV, mimeType: "audio/wav" }]);
      expect((await call("test_embedded_resource")).content).toEqual([
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ]);
      expect((await call("test_multiple_content_types")).content).toEqual([
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: '{"test":"data","value":123}',
          },
        },
      ]);
      expect(await call("test_error_handling")).toEqual({
        isError: true,
        content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
      });
    } finally {
      await close();
    }
  });

  it("reports progress 0, 50, 100 of 100 and returns the progress token", async () => {
    const { client, close } = await connect(mode);
    try {
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool(
        { name: "test_tool_with_progress" },
        { onprogress: (progress) => seen.push(progress) },
      );
      const sent = [0, 50, 100].map((progress) => ({
        progress,
        total: 100,
        message: `Completed step ${progress} of 100`,
      }));
      // The client dispatches notifications a microtask late and forgets the token on the response, so the last one,
      // written just before the response, may be dropped (seen in the stateless era); the exact wire is in wire.test.ts.
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual(sent.slice(0, seen.length));
      // The client picks the token; the tool echoes whatever it was.
      expect(firstText(result)).toMatch(/^[^\s]+$/);
      expect(firstText(result)).not.toBe("undefined");
    } finally {
      await close();
    }
  });

  it("samples the client's model (test_sampling)", async () => {
    const { client, asked, close } = await connect(mode);
    try {
      const result = await client.callTool({
        name: "test_sampling",
        arguments: { prompt: "Test prompt for sampling" },
      });
      expect(firstText(result)).toBe("LLM response: This is a test response from the client");
      expect(asked).toEqual([
        {
          method: "sampling/createMessage",
          params: expect.objectContaining({
            messages: [{ role: "user", content: { type: "text", text: "Test prompt for sampling" } }],
            maxTokens: 100,
          }),
        },
      ]);
    } finally {
      await close();
    }
  });

  it("asks the user (test_elicitation)", async () => {
    const { client, asked, close } = await connect(mode);
    try {
      const result = await client.callTool({
        name: "test_elicitation",
        arguments: { message: "Please provide your information" },
      });
      expect(firstText(result)).toBe(
        'User response: action=accept, content={"username":"testuser","email":"test@example.com"}',
      );
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params).toMatchObject({
        message: "Please provide your information",
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
    } finally {
      await close();
    }
  });

  it("sends the SEP-1034 defaults and SEP-1330 enums forms exactly", async () => {
    const { client, asked, close } = await connect(mode);
    try {
      const defaults = await client.callTool({ name: "test_elicitation_sep1034_defaults" });
      expect(firstText(defaults)).toBe(
        'Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
      );
      const enums = await client.callTool({ name: "test_elicitation_sep1330_enums" });
      expect(firstText(enums)).toContain("Elicitation completed: action=accept");
      expect(asked.map(({ params }) => [params.message, params.requestedSchema])).toEqual([
        ["Please review and update the form fields with defaults", DEFAULTS_FORM],
        ["Please select options from the enum fields", ENUMS_FORM],
      ]);
    } finally {
      await close();
    }
  });

  it("test_missing_capability: -32021 naming sampling without it, Success with it", async () => {
    const bare = await connect(mode, { answers: false });
    try {
      const error = await bare.client.callTool({ name: "test_missing_capability" }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    } finally {
      await bare.close();
    }
    const { client, close } = await connect(mode);
    try {
      expect(firstText(await client.callTool({ name: "test_missing_capability" }))).toBe("Success");
    } finally {
      await close();
    }
  });

  it("test_streaming_elicitation completes without asking the client anything", async () => {
    const { client, asked, close } = await connect(mode);
    try {
      expect(firstText(await client.callTool({ name: "test_streaming_elicitation" }))).toBe("Streaming complete");
      expect(asked).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("logging over stdio with the official client", () => {
  it("handshake era: three info logs after logging/setLevel debug", async () => {
    const { client, close } = await connect("legacy");
    try {
      const logs: unknown[] = [];
      const three = waitFor<void>("three log notifications", (done) =>
        client.setNotificationHandler("notifications/message", (notification) => {
          logs.push(notification.params);
          if (logs.length === 3) done();
        }),
      );
      expect(await client.request({ method: "logging/setLevel", params: { level: "debug" } })).toEqual({});
      const result = await client.callTool({ name: "test_tool_with_logging" });
      expect(firstText(result)).toBe("Tool with logging executed successfully");
      await three;
      const logger = "test_tool_with_logging";
      expect(logs).toEqual([
        { level: "info", logger, data: "Tool execution started" },
        { level: "info", logger, data: "Tool processing data" },
        { level: "info", logger, data: "Tool execution completed" },
      ]);
    } finally {
      await close();
    }
  });

  it("stateless era: logs only for a request whose _meta asks", async () => {
    const { client, close } = await connect({ pin: "2026-07-28" });
    try {
      const logs: unknown[] = [];
      const three = waitFor<void>("three log notifications", (done) =>
        client.setNotificationHandler("notifications/message", (notification) => {
          logs.push(notification.params);
          if (logs.length === 3) done();
        }),
      );
      const result = await client.callTool({
        name: "test_tool_with_logging",
        _meta: { [LOG_LEVEL_META_KEY]: "debug" },
      });
      expect(firstText(result)).toBe("Tool with logging executed successfully");
      await three;
      expect(logs.map((entry) => (entry as { data: unknown }).data)).toEqual([
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ]);
      // Without logLevel, nothing (the exact wire is checked in wire.test.ts).
      expect(firstText(await client.callTool({ name: "test_logging_tool" }))).toBe("Logging evaluated");
      expect(logs).toHaveLength(3);
    } finally {
      await close();
    }
  });
});
