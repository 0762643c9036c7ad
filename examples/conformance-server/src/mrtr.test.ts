import { isInputRequiredResult, ProtocolError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connect, ERAS, firstText, ROOTS } from "./peer.test-util.js";

// The SEP-2322 tools. Handshake era: real requests to the client. 2026-07-28: input_required rounds, which the
// client fulfils with the same handlers.
describe.each(ERAS)("MRTR tools answered by the client's handlers (%s)", (_era, mode) => {
  it("completes every MRTR tool and the MRTR prompt", async () => {
    const { client, close } = await connect(mode);
    try {
      const call = async (name: string) => firstText(await client.callTool({ name }));
      expect(await call("test_input_required_result_elicitation")).toBe("Hello, Alice!");
      expect(await call("test_input_required_result_sampling")).toBe(
        "Sampling result: The capital of France is Paris.",
      );
      expect(await call("test_input_required_result_list_roots")).toBe("Found 1 root(s)");
      expect(await call("test_input_required_result_request_state")).toBe("state-ok: requestState validated");
      expect(await call("test_input_required_result_multiple_inputs")).toBe(
        "Name: Alice; Greeting: Hello there!; Roots: 1",
      );
      expect(await call("test_input_required_result_multi_round")).toBe(
        "Multi-round complete for Alice who likes blue",
      );
      expect(await call("test_input_required_result_tampered_state")).toBe("integrity-ok: state verified");
      expect(await call("test_input_required_result_capabilities")).toBe(
        "capabilities-ok: received elicit_input,sample_input",
      );
      const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Prompt with context: test context" } },
      ]);
    } finally {
      await close();
    }
  });
});

type Rpc = Record<string, unknown> & {
  content?: unknown;
  inputRequests?: Record<string, { method: string; params: unknown }>;
};

const ALICE = { action: "accept", content: { name: "Alice" } };
const SAMPLED = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
  stopReason: "endTurn",
});

describe("MRTR rounds by hand (stateless era)", () => {
  const manual = (capabilities?: Record<string, unknown>) =>
    connect(
      { pin: "2026-07-28" },
      {
        answers: false,
        client: {
          capabilities: capabilities ?? { elicitation: {}, sampling: {}, roots: { listChanged: true } },
          inputRequired: { autoFulfill: false },
        },
      },
    );

  it("rounds of every MRTR fixture, as the conformance scenarios check them", async () => {
    const { client, close } = await manual();
    try {
      const send = async (method: "tools/call" | "prompts/get", params: Record<string, unknown>) =>
        (await client.request({ method, params } as never, { allowInputRequired: true })) as Rpc;
      const tool = (name: string, more: Record<string, unknown> = {}) =>
        send("tools/call", { name, arguments: {}, ...more });

      // A1, A10: the key user_name, exactly; resultType present.
      const a1 = await tool("test_input_required_result_elicitation");
      expect(a1.resultType).toBe("input_required");
      expect(a1.inputRequests).toEqual({
        user_name: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        },
      });
      const a1done = await tool("test_input_required_result_elicitation", {
        inputResponses: { user_name: ALICE },
        requestState: a1.requestState,
      });
      expect(firstText(a1done)).toBe("Hello, Alice!");
      // The client lifts resultType off complete results; wire.test.ts sees it on the wire.
      expect(isInputRequiredResult(a1done)).toBe(false);

      // A2
      const a2 = await tool("test_input_required_result_sampling");
      expect(a2.inputRequests).toEqual({
        capital_question: {
          method: "sampling/createMessage",
          params: {
            messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
            maxTokens: 100,
          },
        },
      });
      const a2done = await tool("test_input_required_result_sampling", {
        inputResponses: { capital_question: SAMPLED("The capital of France is Paris.") },
        requestState: a2.requestState,
      });
      expect(firstText(a2done)).toBe("Sampling result: The capital of France is Paris.");

      // A3: ctx.roots() takes no key, so the core names it roots-1 (the scenario reads whatever key comes first).
      const a3 = await tool("test_input_required_result_list_roots");
      expect(a3.inputRequests).toEqual({ "roots-1": { method: "roots/list", params: {} } });
      const a3done = await tool("test_input_required_result_list_roots", {
        inputResponses: { "roots-1": ROOTS },
        requestState: a3.requestState,
      });
      expect(firstText(a3done)).toBe("Found 1 root(s)");

      // A4
      const a4 = await tool("test_input_required_result_request_state");
      expect(typeof a4.requestState).toBe("string");
      expect(Object.keys(a4.inputRequests ?? {})).toEqual(["confirm"]);
      const a4done = await tool("test_input_required_result_request_state", {
        inputResponses: { confirm: { action: "accept", content: { ok: true } } },
        requestState: a4.requestState,
      });
      expect(firstText(a4done)).toBe("state-ok: requestState validated");

      // A5: one round asks all three.
      const a5 = await tool("test_input_required_result_multiple_inputs");
      expect(typeof a5.requestState).toBe("string");
      const a5requests = a5.inputRequests ?? {};
      expect(Object.fromEntries(Object.entries(a5requests).map(([key, request]) => [key, request.method]))).toEqual({
        user_name: "elicitation/create",
        greeting: "sampling/createMessage",
        "roots-1": "roots/list",
      });
      const a5done = await tool("test_input_required_result_multiple_inputs", {
        inputResponses: { user_name: ALICE, greeting: SAMPLED("Hello there!"), "roots-1": ROOTS },
        requestState: a5.requestState,
      });
      expect(firstText(a5done)).toBe("Name: Alice; Greeting: Hello there!; Roots: 1");

      // A6: round two asks step2 with a different state; round three completes.
      const r1 = await tool("test_input_required_result_multi_round");
      expect(Object.keys(r1.inputRequests ?? {})).toEqual(["step1"]);
      const r2 = await tool("test_input_required_result_multi_round", {
        inputResponses: { step1: ALICE },
        requestState: r1.requestState,
      });
      expect(r2.resultType).toBe("input_required");
      expect(Object.keys(r2.inputRequests ?? {})).toEqual(["step2"]);
      expect(r2.requestState).not.toBe(r1.requestState);
      const r3 = await tool("test_input_required_result_multi_round", {
        inputResponses: { step2: { action: "accept", content: { color: "blue" } } },
        requestState: r2.requestState,
      });
      expect(firstText(r3)).toBe("Multi-round complete for Alice who likes blue");

      // A7: the wrong key asks again; A14: unknown extra keys are ignored.
      const a7 = await tool("test_input_required_result_elicitation", {
        inputResponses: { wrong_key: { action: "accept", content: { data: "wrong" } } },
      });
      expect(a7.resultType).toBe("input_required");
      expect(Object.keys(a7.inputRequests ?? {})).toEqual(["user_name"]);
      const a14 = await tool("test_input_required_result_elicitation", {
        inputResponses: {
          user_name: ALICE,
          unknown_extra_key: { action: "accept", content: { x: 1 } },
          another_unexpected: { action: "decline" },
        },
      });
      expect(firstText(a14)).toBe("Hello, Alice!");

      // A9: prompts/get asks too.
      const a9 = await send("prompts/get", { name: "test_input_required_result_prompt" });
      expect(a9.inputRequests).toEqual({
        user_context: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "What context should the prompt use?",
            requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
          },
        },
      });
      const a9done = await send("prompts/get", {
        name: "test_input_required_result_prompt",
        inputResponses: { user_context: { action: "accept", content: { context: "test context" } } },
        requestState: a9.requestState,
      });
      expect(a9done.messages).toEqual([
        { role: "user", content: { type: "text", text: "Prompt with context: test context" } },
      ]);

      // A11: list methods never answer input_required.
      expect(isInputRequiredResult(await client.request({ method: "tools/list", params: {} }))).toBe(false);
      expect(isInputRequiredResult(await client.request({ method: "prompts/list", params: {} }))).toBe(false);
    } finally {
      await close();
    }
  });

  it("A12: a tampered requestState is a JSON-RPC error", async () => {
    const { client, close } = await manual();
    try {
      const params = { name: "test_input_required_result_tampered_state", arguments: {} };
      const first = (await client.request({ method: "tools/call", params }, { allowInputRequired: true })) as Rpc;
      expect(typeof first.requestState).toBe("string");
      const retry = client.request(
        {
          method: "tools/call",
          params: {
            ...params,
            inputResponses: { confirm: { action: "accept", content: { ok: true } } },
            requestState: `${first.requestState}-TAMPERED`,
          },
        } as never,
        { allowInputRequired: true },
      );
      const error = await retry.catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32602 });
    } finally {
      await close();
    }
  });

  it("A13: asks only for what the client declared (sampling only)", async () => {
    const { client, close } = await manual({ sampling: {} });
    try {
      const result = (await client.request(
        { method: "tools/call", params: { name: "test_input_required_result_capabilities", arguments: {} } },
        { allowInputRequired: true },
      )) as Rpc;
      expect(result.resultType).toBe("input_required");
      expect(result.inputRequests).toEqual({
        sample_input: {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "Sample request" } }], maxTokens: 50 },
        },
      });
    } finally {
      await close();
    }
  });
});
