import { type Client, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import {
  firstText,
  inputRounds,
  type Peer,
  protocolError,
  ROOT,
  type SuiteContext,
  sent,
  serverRequests,
  until,
} from "./peer.js";

/** Elicitation, sampling and roots, answered by the client's own handlers. */
export function askingCases(ctx: SuiteContext): void {
  const { modern, another } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  describe("asking the client", () => {
    const how = modern ? "input_required rounds" : "server-to-client requests";

    it(`elicits through the client's handler (${how})`, async () => {
      const mark = peer.wire.length;
      const asked = peer.asked.length;
      peer.answer.elicit = { action: "accept", content: { name: "Grace" } };
      const result = await client.callTool({ name: "ask_name", arguments: {} });
      expect(firstText(result)).toBe("Hello, Grace!");
      expect(peer.asked.slice(asked)).toEqual([
        {
          method: "elicitation/create",
          params: expect.objectContaining({
            message: "What is your name?",
            requestedSchema: expect.objectContaining({ properties: { name: { type: "string" } } }),
          }),
        },
      ]);
      expect(modern ? inputRounds(peer, mark) : serverRequests(peer, "elicitation/create", mark)).toHaveLength(1);
      expect(modern ? serverRequests(peer, "elicitation/create", mark) : inputRounds(peer, mark)).toHaveLength(0);

      peer.answer.elicit = { action: "decline" };
      expect(firstText(await client.callTool({ name: "ask_name", arguments: {} }))).toBe("No name (decline)");
      peer.answer.elicit = { action: "accept" };
    });

    it("matches each answer to its question when calls ask at once", async () => {
      const roles = ["pilot", "navigator", "purser", "steward"];
      const results = await Promise.all(
        roles.map((role) => client.callTool({ name: "ask_name", arguments: { role } })),
      );
      expect(results.map(firstText)).toEqual(roles.map((role) => `Hello, ${role}!`));
    });

    it("elicits in URL mode", async () => {
      const asked = peer.asked.length;
      expect(firstText(await client.callTool({ name: "open_page", arguments: {} }))).toBe("url: accept");
      expect(peer.asked.slice(asked)).toEqual([
        {
          method: "elicitation/create",
          params: expect.objectContaining({ mode: "url", url: "https://example.com/sign-in" }),
        },
      ]);
    });

    it(`asks one question after another (${modern ? "two input_required rounds" : "two requests"})`, async () => {
      const mark = peer.wire.length;
      const asked = peer.asked.length;
      peer.answer.elicit = { action: "accept", content: { name: "Lin" } };
      const result = await client.callTool({ name: "interview", arguments: {} });
      expect(firstText(result)).toBe('Lin: summary of "greet Lin"');
      expect(peer.asked.slice(asked).map((note) => note.method)).toEqual([
        "elicitation/create",
        "sampling/createMessage",
      ]);
      if (modern) expect(inputRounds(peer, mark)).toHaveLength(2);
      peer.answer.elicit = { action: "accept" };
    });

    it.each([
      ["small, in the sealed state", 10],
      ["large, in the engine", 3000],
    ])(
      `keeps what it computed before asking (ctx.keep, %s): the slow part runs once, its progress is sent once`,
      async (_where, rows) => {
        const mark = peer.wire.length;
        const seen: string[] = [];
        const tag = `${modern ? "modern" : "legacy"}-${rows}`;
        const result = await client.callTool(
          { name: "kept_report", arguments: { tag, rows } },
          { onprogress: (progress) => seen.push(`${progress.progress} ${progress.message}`) },
        );
        expect(result.structuredContent).toEqual({ rows, last: `row ${rows - 1}`, computed: 1, answer: "accept" });
        expect(inputRounds(peer, mark)).toHaveLength(modern ? 1 : 0);
        expect(sent(peer, "notifications/progress", mark).map((params) => params.progress)).toEqual([1, 2, 3, 4]);
        // Client 2.4.0 tells its caller of each input round it fulfils as progress of its own, numbered by round.
        const own = modern ? ["1 Fulfilling input required by 'tools/call' (round 1)"] : [];
        expect(seen.slice(seen.length - own.length)).toEqual(own);
        // In 2026-07-28 the progress comes just before the input_required reply, and the client drops its handler
        // as soon as it reads that reply (it hands notifications on a microtask late): what came in the same read
        // never reaches onprogress. So the caller sees a prefix of the four, each once, in order.
        const heard = seen.slice(0, seen.length - own.length);
        const all = ["1 counting 1", "2 counting 2", "3 counting 3", "4 counted"];
        expect(heard).toEqual(modern ? all.slice(0, heard.length) : all);
      },
    );

    it(`asks the client while getting a prompt (${how})`, async () => {
      const mark = peer.wire.length;
      peer.answer.elicit = { action: "accept", content: { name: "Mo" } };
      const result = await client.getPrompt({ name: "personal" });
      expect(result.messages[0]?.content).toEqual({ type: "text", text: "Greet Mo." });
      expect(modern ? inputRounds(peer, mark) : serverRequests(peer, "elicitation/create", mark)).toHaveLength(1);
      peer.answer.elicit = { action: "accept" };
    });

    it(`samples through the client's handler (${how})`, async () => {
      const mark = peer.wire.length;
      const result = await client.callTool({ name: "summarize", arguments: { text: "a long story" } });
      expect(firstText(result)).toBe('suite-model: summary of "a long story"');
      expect(modern ? inputRounds(peer, mark) : serverRequests(peer, "sampling/createMessage", mark)).toHaveLength(1);
    });

    it(`lists the client's roots (${how})`, async () => {
      const mark = peer.wire.length;
      const result = await client.callTool({ name: "list_roots", arguments: {} });
      expect(result.structuredContent).toEqual({ roots: [ROOT] });
      expect(modern ? inputRounds(peer, mark) : serverRequests(peer, "roots/list", mark)).toHaveLength(1);
    });

    if (!modern) {
      it("withdraws its question when the client cancels the call that asked it", async () => {
        const controller = new AbortController();
        let question: AbortSignal | undefined;
        const { client: asker } = await another({
          capabilities: { elicitation: { form: {} } },
          setup: (c) =>
            c.setRequestHandler("elicitation/create", (_request, ctx) => {
              question = ctx.mcpReq.signal;
              controller.abort(new Error("the user walked away"));
              // The user never answers: the server is to withdraw the question (notifications/cancelled).
              return new Promise((resolve) =>
                ctx.mcpReq.signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
              );
            }),
        });
        const call = asker.callTool({ name: "ask_name", arguments: {} }, { signal: controller.signal });
        await expect(call).rejects.toThrow();
        const signal = await until(() => question, "the elicitation request");
        await until(() => (signal.aborted ? true : undefined), "notifications/cancelled for the elicitation");
        expect(firstText(await asker.callTool({ name: "echo", arguments: { text: "next" } }))).toBe("next");
      });
    }

    it("refuses to ask a client without the capability: -32021", async () => {
      const { client: plain } = await another({ capabilities: {} });
      await expect(plain.callTool({ name: "summarize", arguments: { text: "x" } })).rejects.toSatisfy(
        protocolError(ProtocolErrorCode.MissingRequiredClientCapability),
      );
      await expect(plain.callTool({ name: "ask_name", arguments: {} })).rejects.toSatisfy(
        protocolError(ProtocolErrorCode.MissingRequiredClientCapability),
      );
    });
  });
}
