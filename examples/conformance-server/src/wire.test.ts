import { describe, expect, it } from "vitest";
import { replay } from "../../../scripts/stdio-replay.js";
import { serverPath } from "./peer.test-util.js";

// The exact lines the conformance harness checks, and requests the official client would not send as they are.

type Line = { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> } & {
  error?: { code: number; message: string; data?: unknown };
};

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "conformance-test-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { sampling: {}, elicitation: {}, roots: { listChanged: true } },
};

function request(id: number, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...META, ...meta } } });
}

async function run(...lines: string[]): Promise<Line[]> {
  const { stdout } = await replay(serverPath, lines);
  return stdout.map((line) => JSON.parse(line) as Line);
}

const byId = (lines: Line[], id: number) => lines.find((line) => line.id === id && !line.method);

describe("the 2026-07-28 wire, line by line", () => {
  it("test_tool_with_progress: three progress notifications, then the token as text", async () => {
    const lines = await run(
      request(
        1,
        "tools/call",
        { name: "test_tool_with_progress", arguments: {} },
        { progressToken: "progress-test-1" },
      ),
    );
    expect(lines).toEqual([
      ...[0, 50, 100].map((progress) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: "progress-test-1",
          progress,
          total: 100,
          message: `Completed step ${progress} of 100`,
        },
      })),
      {
        jsonrpc: "2.0",
        id: 1,
        result: expect.objectContaining({
          content: [{ type: "text", text: "progress-test-1" }],
          resultType: "complete",
        }),
      },
    ]);
  });

  it("test_logging_tool: no notifications/message without logLevel, one with it", async () => {
    const lines = await run(
      request(1, "tools/call", { name: "test_logging_tool" }),
      request(2, "tools/call", { name: "test_logging_tool" }, { "io.modelcontextprotocol/logLevel": "info" }),
    );
    expect(lines.map((line) => line.method ?? `reply ${line.id}`)).toEqual([
      "reply 1",
      "notifications/message",
      "reply 2",
    ]);
    expect(byId(lines, 1)?.result?.content).toEqual([{ type: "text", text: "Logging evaluated" }]);
  });

  it("test_missing_capability without sampling: -32021, the id echoed", async () => {
    const [reply] = await run(
      request(
        401,
        "tools/call",
        { name: "test_missing_capability" },
        { "io.modelcontextprotocol/clientCapabilities": {} },
      ),
    );
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: 401,
      error: { code: -32021, message: expect.any(String), data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it("test_streaming_elicitation: no server-to-client request on the stream", async () => {
    const lines = await run(
      request(
        1,
        "tools/call",
        { name: "test_streaming_elicitation" },
        { progressToken: "token-abc", "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
      ),
    );
    expect(lines.filter((line) => line.method !== undefined && line.id !== undefined)).toEqual([]);
    expect(lines.at(-1)?.result?.content).toEqual([{ type: "text", text: "Streaming complete" }]);
  });

  it("A15: malformed inputResponses are errors, not complete results", async () => {
    const name = "test_input_required_result_elicitation";
    const lines = await run(
      request(1, "tools/call", { name, arguments: {}, inputResponses: { user_name: 12345 } }),
      request(2, "tools/call", { name, arguments: {}, inputResponses: null }),
    );
    expect(byId(lines, 1)?.error).toMatchObject({ code: -32602 });
    expect(byId(lines, 2)?.error).toMatchObject({ code: -32602 });
  });

  it("sep-2164: an unknown resource is -32602 with data.uri", async () => {
    const uri = "test://nonexistent-resource-for-conformance-testing";
    const [reply] = await run(request(1, "resources/read", { uri }));
    expect(reply?.error).toEqual({ code: -32602, message: expect.any(String), data: { uri } });
  });

  it("caching: lists and reads carry ttlMs and cacheScope; every result carries resultType", async () => {
    const methods = ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "server/discover"];
    const lines = await run(
      ...methods.map((method, index) => request(index + 1, method)),
      request(9, "resources/read", { uri: "test://static-text" }),
      request(10, "completion/complete", {
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "test" },
      }),
    );
    for (const id of [1, 2, 3, 4, 5, 9]) {
      const result = byId(lines, id)?.result;
      expect(result, `reply ${id}`).toMatchObject({ resultType: "complete" });
      expect(Number.isInteger(result?.ttlMs) && (result?.ttlMs as number) >= 0, `reply ${id}`).toBe(true);
      expect(["public", "private"], `reply ${id}`).toContain(result?.cacheScope);
    }
    expect(byId(lines, 10)?.result).toMatchObject({
      resultType: "complete",
      completion: { values: ["testValue1", "test"] },
    });
    expect(byId(lines, 5)?.result).toMatchObject({
      supportedVersions: expect.arrayContaining(["2026-07-28"]),
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, completions: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolsmith-conformance-server", version: "1.0.0" } },
    });
  });
});

describe("the 2025-11-25 wire, line by line", () => {
  const handshake = [
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "conformance-test-client", version: "1.0.0" },
      },
    }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  ];

  it("logging/setLevel is exactly {}; an unknown resource is -32002 with data.uri", async () => {
    const uri = "test://nonexistent-resource-for-conformance-testing";
    const lines = await run(
      ...handshake,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "info" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } }),
    );
    expect(byId(lines, 0)?.result).toMatchObject({ protocolVersion: "2025-11-25" });
    expect(byId(lines, 1)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(byId(lines, 2)?.error).toEqual({ code: -32002, message: expect.any(String), data: { uri } });
  });
});
