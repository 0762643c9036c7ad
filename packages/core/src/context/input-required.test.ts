import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { AuthInfo } from "./context.js";

// requestState is attacker-controlled: sealed, bound to method, name, arguments, caller and expiry. A state that fails
// any of these is refused with -32602 and the handler does not run.

const KEY = "a test key of more than sixteen bytes";

function server(options: { stateKey?: string; requestStateTtlMs?: number } = {}) {
  const s = createServer({ name: "mrtr", version: "1", stateKey: KEY, ...options });
  const runs: string[] = [];
  for (const name of ["transfer", "other"]) {
    s.tool({
      name,
      description: `${name} money`,
      input: { amount: z.number() },
      handler: async ({ amount }, ctx) => {
        runs.push(`${name}:${amount}`);
        const answer = await ctx.elicit({ key: "confirm", message: `Send ${amount}?`, schema: { ok: z.boolean() } });
        return answer.action === "accept" && answer.content.ok ? `sent ${amount}` : "not sent";
      },
    });
  }
  s.prompt({
    name: "brief",
    description: "brief",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ key: "context", message: "Context?", schema: { context: z.string() } });
      return answer.action === "accept" ? `Brief on ${answer.content.context}` : "no brief";
    },
  });
  return { s, runs };
}

async function firstRound(client: TestClient, name = "transfer", amount = 10) {
  const result = await client.request("tools/call", { name, arguments: { amount } });
  expect(result.resultType).toBe("input_required");
  return result.requestState as string;
}

const yes = { confirm: { action: "accept", content: { ok: true } } };

describe("2026-07-28 requestState", () => {
  it("a genuine retry completes", async () => {
    const { s, runs } = server();
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const requestState = await firstRound(client);
    const done = await client.request("tools/call", {
      name: "transfer",
      arguments: { amount: 10 },
      inputResponses: yes,
      requestState,
    });
    expect(done).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "sent 10" }] });
    expect(runs).toEqual(["transfer:10", "transfer:10"]);
  });

  const refusals: [string, (state: string) => Record<string, unknown>, RegExp][] = [
    [
      "tampered",
      (state) => ({ name: "transfer", arguments: { amount: 10 }, requestState: `${state.slice(0, -2)}xx` }),
      /not issued by this server, or was altered/,
    ],
    [
      "tampered body",
      (state) => ({ name: "transfer", arguments: { amount: 10 }, requestState: `e30${state.slice(3)}` }),
      /not issued by this server, or was altered/,
    ],
    [
      "appended to",
      (state) => ({ name: "transfer", arguments: { amount: 10 }, requestState: `${state}-TAMPERED` }),
      /altered/,
    ],
    [
      "replayed against another tool",
      (state) => ({ name: "other", arguments: { amount: 10 }, requestState: state }),
      /issued for tools\/call "transfer"/,
    ],
    [
      "replayed with other arguments",
      (state) => ({ name: "transfer", arguments: { amount: 10_000 }, requestState: state }),
      /arguments differ/,
    ],
    [
      "not a string",
      () => ({ name: "transfer", arguments: { amount: 10 }, requestState: { forged: true } }),
      /altered/,
    ],
  ];

  it.each(refusals)("%s: refused with -32602, handler not run", async (_case, retry, reason) => {
    const { s, runs } = server();
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const state = await firstRound(client);
    const error = await rpcError(client.request("tools/call", { ...retry(state), inputResponses: yes }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(reason);
    expect(runs).toEqual(["transfer:10"]);
  });

  it("replayed against a prompt: refused", async () => {
    const { s } = server();
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const requestState = await firstRound(client);
    const error = await rpcError(client.request("prompts/get", { name: "brief", requestState }));
    expect(error.message).toMatch(/issued for tools\/call/);
  });

  it("expired: refused", async () => {
    const { s, runs } = server({ requestStateTtlMs: 1 });
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const requestState = await firstRound(client);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await rpcError(
      client.request("tools/call", { name: "transfer", arguments: { amount: 10 }, inputResponses: yes, requestState }),
    );
    expect(error.message).toMatch(/expired/);
    expect(runs).toHaveLength(1);
  });

  it("from a server with another key: refused; from another process with the same key: accepted", async () => {
    const first = server();
    const stranger = server({ stateKey: "another key, also long enough" });
    const twin = server();
    const a = await createTestClient(first.s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const requestState = await firstRound(a);
    const retry = { name: "transfer", arguments: { amount: 10 }, inputResponses: yes, requestState };
    const b = await createTestClient(stranger.s, { followInputRequired: false, capabilities: { elicitation: {} } });
    expect((await rpcError(b.request("tools/call", retry))).code).toBe(ErrorCode.InvalidParams);
    expect(stranger.runs).toEqual([]);
    const c = await createTestClient(twin.s, { followInputRequired: false, capabilities: { elicitation: {} } });
    expect(await c.request("tools/call", retry)).toMatchObject({ content: [{ text: "sent 10" }] });
  });

  it("bound to the caller: another principal's retry is refused", async () => {
    const { s, runs } = server();
    const alice: AuthInfo = { subject: "alice", scopes: [] };
    const mallory: AuthInfo = { subject: "mallory", scopes: [] };
    const asAlice = await createTestClient(s, {
      followInputRequired: false,
      capabilities: { elicitation: {} },
      auth: alice,
    });
    const requestState = await firstRound(asAlice);
    const asMallory = await createTestClient(s, {
      followInputRequired: false,
      capabilities: { elicitation: {} },
      auth: mallory,
    });
    const error = await rpcError(
      asMallory.request("tools/call", {
        name: "transfer",
        arguments: { amount: 10 },
        inputResponses: yes,
        requestState,
      }),
    );
    expect(error.message).toMatch(/another caller/);
    expect(runs).toHaveLength(1);
  });

  it("a retry cancelled while its state is being checked does not run and gets no reply", async () => {
    const { s, runs } = server();
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const requestState = await firstRound(client);
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: "retry",
      method: "tools/call",
      params: {
        name: "transfer",
        arguments: { amount: 10 },
        inputResponses: yes,
        requestState,
        _meta: { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: { elicitation: {} } },
      },
    });
    const reply = client.send(line);
    await client.notify("notifications/cancelled", { requestId: "retry" });
    expect(await reply).toBeUndefined();
    expect(runs).toEqual(["transfer:10"]);
  });

  it("multi-round: each round's state carries the earlier answers, and differs from the last", async () => {
    const s = createServer({ name: "rounds", version: "1", stateKey: KEY });
    s.tool({
      name: "survey",
      description: "two questions",
      handler: async (_args, ctx) => {
        const name = await ctx.elicit({ key: "step1", message: "Name?", schema: { name: z.string() } });
        const color = await ctx.elicit({ key: "step2", message: "Colour?", schema: { color: z.string() } });
        return name.action === "accept" && color.action === "accept"
          ? `${name.content.name} likes ${color.content.color}`
          : "-";
      },
    });
    const client = await createTestClient(s, { followInputRequired: false, capabilities: { elicitation: {} } });
    const r1 = await client.request("tools/call", { name: "survey" });
    expect(Object.keys(r1.inputRequests as object)).toEqual(["step1"]);
    const r2 = await client.request("tools/call", {
      name: "survey",
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: r1.requestState,
    });
    expect(Object.keys(r2.inputRequests as object)).toEqual(["step2"]);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await client.request("tools/call", {
      name: "survey",
      inputResponses: { step2: { action: "accept", content: { color: "blue" } } },
      requestState: r2.requestState,
    });
    expect(r3).toMatchObject({ resultType: "complete", content: [{ text: "Alice likes blue" }] });
  });

  it("concurrent questions in one round are asked together", async () => {
    const s = createServer({ name: "many", version: "1" });
    s.tool({
      name: "all",
      description: "asks three things at once",
      handler: async (_args, ctx) => {
        const [who, greeting, roots] = await Promise.all([
          ctx.elicit({ key: "user_name", message: "Name?", schema: { name: z.string() } }),
          ctx.sample({
            key: "greeting",
            messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
            maxTokens: 5,
          }),
          ctx.roots(),
        ]);
        return `${who.action} ${greeting.model} ${roots.length}`;
      },
    });
    const client = await createTestClient(s, {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      followInputRequired: false,
    });
    const r1 = await client.request("tools/call", { name: "all" });
    expect(Object.keys(r1.inputRequests as object).sort()).toEqual(["greeting", "roots-1", "user_name"]);
  });

  it("prompts/get and resources/read may ask too; list methods never answer input_required", async () => {
    const { s } = server();
    s.resource({
      uri: "secret://doc",
      handler: async (ctx) => {
        const ok = await ctx.elicit({ message: "Show it?", schema: { ok: z.boolean() } });
        return ok.action === "accept" ? "the doc" : undefined;
      },
    });
    const client = await createTestClient(s, {
      elicit: async (params) => ({
        action: "accept",
        content: String(params.message).startsWith("Context") ? { context: "Q3" } : { ok: true },
      }),
    });
    expect(await client.getPrompt("brief")).toMatchObject({ messages: [{ content: { text: "Brief on Q3" } }] });
    expect(await client.readResource("secret://doc")).toMatchObject({ contents: [{ text: "the doc" }], ttlMs: 0 });
    for (const method of ["tools/list", "prompts/list", "resources/list"]) {
      expect((await client.request(method)).resultType).toBe("complete");
    }
  });
});
