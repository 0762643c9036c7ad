import { describe, expect, it } from "vitest";
import { connect, firstText, waitFor } from "./peer.test-util.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

describe("list changes after test_trigger_tool_change / test_trigger_prompt_change", () => {
  it("handshake era: unsolicited list_changed notifications; the list follows", async () => {
    const { client, close } = await connect("legacy");
    try {
      let tools = 0;
      let prompts = 0;
      const toolsChanged = (count: number) =>
        waitFor<void>(`tools list_changed #${count}`, (done) =>
          client.setNotificationHandler("notifications/tools/list_changed", () => {
            tools++;
            if (tools === count) done();
          }),
        );
      const promptsChanged = waitFor<void>("prompts list_changed", (done) =>
        client.setNotificationHandler("notifications/prompts/list_changed", () => {
          prompts++;
          done();
        }),
      );
      const first = toolsChanged(1);
      expect(firstText(await client.callTool({ name: "test_trigger_tool_change" }))).toBe("Mutation triggered");
      await first;
      const names = async () =>
        (await client.listTools(undefined, { cacheMode: "bypass" })).tools.map((tool) => tool.name);
      expect(await names()).toContain("test_dynamic_tool");
      expect(firstText(await client.callTool({ name: "test_dynamic_tool" }))).toBe("Dynamic tool called");

      const second = toolsChanged(2);
      await client.callTool({ name: "test_trigger_tool_change" });
      await second;
      expect(await names()).not.toContain("test_dynamic_tool");

      expect(firstText(await client.callTool({ name: "test_trigger_prompt_change" }))).toBe("Mutation triggered");
      await promptsChanged;
      const { prompts: listed } = await client.listPrompts(undefined, { cacheMode: "bypass" });
      expect(listed.map((p) => p.name)).toContain("test_dynamic_prompt");
      expect(prompts).toBe(1);
    } finally {
      await close();
    }
  });

  it("stateless era: only on listen streams that asked, tagged with their id", async () => {
    const { client, close } = await connect({ pin: "2026-07-28" });
    try {
      const seen: { method: string; id: unknown }[] = [];
      let notify: (() => void) | undefined;
      const record = (method: string) => (n: { params?: { _meta?: Record<string, unknown> } }) => {
        seen.push({ method, id: n.params?._meta?.[SUBSCRIPTION_ID] });
        notify?.();
      };
      client.setNotificationHandler("notifications/tools/list_changed", record("tools"));
      client.setNotificationHandler("notifications/prompts/list_changed", record("prompts"));
      const next = (what: string, count: number) =>
        waitFor<void>(what, (done) => {
          notify = () => {
            if (seen.length >= count) done();
          };
          notify();
        });

      // A stream that asked for prompts only: a tool change must not reach it.
      const promptsOnly = await client.listen({ promptsListChanged: true });
      expect(promptsOnly.honoredFilter).toEqual({ promptsListChanged: true });
      await client.callTool({ name: "test_trigger_tool_change" });
      await client.callTool({ name: "test_trigger_prompt_change" });
      await next("prompts list_changed", 1);
      expect(seen).toEqual([{ method: "prompts", id: expect.anything() }]);
      await promptsOnly.close();

      const toolsToo = await client.listen({ toolsListChanged: true });
      expect(toolsToo.honoredFilter).toEqual({ toolsListChanged: true });
      await client.callTool({ name: "test_trigger_tool_change" });
      await next("tools list_changed", 2);
      expect(seen[1]).toEqual({ method: "tools", id: expect.anything() });
      expect(seen[1]?.id).not.toEqual(seen[0]?.id);
      await toolsToo.close();
    } finally {
      await close();
    }
  });
});
