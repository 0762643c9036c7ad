import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inputRound } from "../context/ask.js";
import type { AuthInfo } from "../context/context.js";
import { inputRequired, openRound } from "../context/input-required.js";
import type { LogEntry } from "../context/logger.js";
import { createMemoryEngine } from "../engine/memory.js";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { Sealer } from "../wire/seal.js";
import { connectLines, replyTo } from "./connection.test-util.js";

// Binding never succeeds on an absent identity: a principal without a subject is refused, never "equal" to another.

const KEY = "a test key of more than sixteen bytes";
const ALICE: AuthInfo = { subject: "alice", scopes: [] };
const BOB: AuthInfo = { subject: "bob", scopes: [] };
const NO_SUBJECT = /^auth\.subject must be a non-empty string: a principal without a subject cannot be told apart/;
const SUBJECTLESS = [
  ["{}", {}],
  ['{ subject: "" }', { subject: "", scopes: [] }],
  ['{ subject: " \\t" } (white space only)', { subject: " \t", scopes: [] }],
  ["{ subject: undefined, scopes }", { subject: undefined, scopes: ["admin"] }],
] as unknown as [string, AuthInfo][];

function server(logged: LogEntry[] = []) {
  const s = createServer({ name: "bound", version: "1", stateKey: KEY, logger: (entry) => logged.push(entry) });
  const runs: string[] = [];
  s.tool({
    name: "transfer",
    description: "Asks first",
    handler: async (_args, ctx) => {
      runs.push(ctx.auth?.subject ?? "anonymous");
      return (await ctx.elicit({ key: "ok", message: "Sure?", schema: { ok: z.boolean() } })).action;
    },
  });
  return { s, runs };
}

const manual = { followInputRequired: false, capabilities: { elicitation: {} } } as const;
const yes = { ok: { action: "accept", content: { ok: true } } };

describe.each(SUBJECTLESS)("a principal without a subject: %s", (_name, auth) => {
  it("connect({ auth }) refuses it", async () => {
    const { s } = server();
    expect(() => s.connect({ send: () => {}, auth })).toThrow(NO_SUBJECT);
    await expect(createTestClient(s, { auth })).rejects.toThrow(NO_SUBJECT);
  });

  it("a message that brings it gets -32603, logged, and runs nothing", async () => {
    const logged: LogEntry[] = [];
    const { s, runs } = server(logged);
    const connection = connectLines(s);
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "transfer",
        _meta: { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} },
      },
    });
    const reply = JSON.parse((await replyTo(connection, line, { auth })) as string);
    expect(reply.error.code).toBe(ErrorCode.InternalError);
    const session = connectLines(s);
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } };
    await replyTo(session, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init }));
    await replyTo(session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "transfer" } });
    expect(JSON.parse((await replyTo(session, call, { auth })) as string).error.code).toBe(ErrorCode.InternalError);
    expect(runs).toEqual([]);
    expect(logged.map((entry) => entry.message)).toEqual([
      expect.stringMatching(/auth\.subject must be a non-empty string/),
      expect.stringMatching(/auth\.subject must be a non-empty string/),
    ]);
  });

  it("core's requestState binding refuses it, even past the connection", async () => {
    const sealer = new Sealer(KEY);
    const target = (who: AuthInfo | undefined) => ({ method: "tools/call", target: "transfer", args: {}, auth: who });
    const host = { engine: createMemoryEngine(), sealer, startEngine: () => {}, log: () => {} };
    const round = inputRound(undefined);
    round.asked = { ok: { method: "elicitation/create", params: {} } };
    await expect(inputRequired(sealer, round, target(auth), 0, 60_000, host)).rejects.toThrow(NO_SUBJECT);
    const anonymous = await inputRequired(sealer, round, target(undefined), 0, 60_000, host);
    const params = { requestState: anonymous.requestState };
    await expect(Promise.resolve(openRound(sealer, params, target(auth), 0, host))).rejects.toThrow(NO_SUBJECT);
  });
});

describe("requestState is bound to who it was issued to", () => {
  const cases: [string, AuthInfo | undefined, AuthInfo | undefined][] = [
    ["minted for alice, refused for bob", ALICE, BOB],
    ["minted for alice, refused for an anonymous caller", ALICE, undefined],
    ["minted anonymously, refused for alice", undefined, ALICE],
  ];
  it.each(cases)("%s", async (_name, minter, other) => {
    const { s, runs } = server();
    const first = await createTestClient(s, { ...manual, ...(minter ? { auth: minter } : {}) });
    const { requestState } = await first.request("tools/call", { name: "transfer" });
    const second = await createTestClient(s, { ...manual, ...(other ? { auth: other } : {}) });
    const error = await rpcError(second.request("tools/call", { name: "transfer", inputResponses: yes, requestState }));
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/another caller/) });
    expect(runs).toHaveLength(1);
    // Its own caller still completes it.
    expect(await first.request("tools/call", { name: "transfer", inputResponses: yes, requestState })).toMatchObject({
      content: [{ text: "accept" }],
    });
  });
});
