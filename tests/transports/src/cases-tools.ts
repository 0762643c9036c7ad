import { type Client, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { HIDDEN_TOOL, PNG, WAV } from "./fixture-server.js";
import { failsOnWire, firstText, type Peer, protocolError, type SuiteContext, sent } from "./peer.js";

/** Tools: listing, calling, validation, errors, content, concurrency. */
export function toolCases(ctx: SuiteContext): void {
  const { check } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  describe("tools", () => {
    it("lists tools with their schemas", async () => {
      const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get("echo")).toMatchObject({
        description: "Return the text",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      });
      expect(byName.get("add")?.outputSchema).toMatchObject({ properties: { sum: { type: "number" } } });
      expect(byName.has(HIDDEN_TOOL)).toBe(false);
    });

    it("calls a tool, and answers invalid arguments with an isError result", async () => {
      expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
        content: [{ type: "text", text: "hi" }],
      });
      const invalid = await client.callTool({ name: "echo", arguments: { text: 5 } });
      expect(invalid.isError).toBe(true);
      expect(firstText(invalid)).toMatch(/text/);
      const missing = await client.callTool({ name: "echo", arguments: {} });
      expect(missing.isError).toBe(true);
    });

    it("answers a thrown error with isError and an unknown tool with -32602", async () => {
      const failed = await client.callTool({ name: "fail", arguments: {} });
      expect(failed).toMatchObject({ isError: true, content: [{ type: "text" }] });
      expect(firstText(failed)).toContain("the fixture failed on purpose");
      await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toSatisfy(
        protocolError(ProtocolErrorCode.InvalidParams),
      );
    });

    it("answers an unknown method with -32601", async () => {
      await failsOnWire(
        peer,
        () => client.request({ method: "acme/unknown", params: {} }, z.looseObject({})),
        ProtocolErrorCode.MethodNotFound,
      );
    });

    check("prototype-method-names")("answers methods named after Object.prototype's keys with -32601", async () => {
      for (const method of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
        await failsOnWire(
          peer,
          () => client.request({ method, params: {} }, z.looseObject({})),
          ProtocolErrorCode.MethodNotFound,
        );
      }
    });

    it("keeps concurrent calls and their progress apart", async () => {
      const mark = peer.wire.length;
      const seen: number[][] = [[], [], [], []];
      const results = await Promise.all(
        [1, 2, 3, 4].map((to, index) =>
          client.callTool(
            { name: "count", arguments: { to } },
            { onprogress: (progress) => seen[index]?.push(progress.total ?? -1) },
          ),
        ),
      );
      expect(results.map(firstText)).toEqual([1, 2, 3, 4].map((to) => `counted to ${to}`));
      // A call hears only of its own progress.
      seen.forEach((totals, index) => {
        expect(totals.every((total) => total === index + 1)).toBe(true);
      });
      const byToken = new Map<unknown, number[]>();
      for (const params of sent(peer, "notifications/progress", mark)) {
        byToken.set(params.progressToken, [...(byToken.get(params.progressToken) ?? []), params.progress as number]);
      }
      expect([...byToken.values()].sort((a, b) => a.length - b.length)).toEqual([[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]);
    });

    it("returns structured output with its JSON as text", async () => {
      const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
      expect(result.structuredContent).toEqual({ sum: 5 });
      expect(JSON.parse(firstText(result) ?? "null")).toEqual({ sum: 5 });
    });

    it("returns every content type", async () => {
      const result = await client.callTool({ name: "content", arguments: {} });
      expect(result.content).toEqual([
        { type: "text", text: "plain text" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "audio", data: WAV, mimeType: "audio/wav" },
        { type: "resource_link", uri: "fixture://readme", name: "readme", mimeType: "text/plain" },
        {
          type: "resource",
          resource: { uri: "fixture://embedded", text: "embedded text", mimeType: "text/plain" },
        },
      ]);
    });
  });
}
