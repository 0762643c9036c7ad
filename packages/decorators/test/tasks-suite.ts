// @tool({ task }): a decorated method runs as a task (the io.modelcontextprotocol/tasks extension) for a client that
// declared the extension, in both decorator dialects. Run in both (see dialect-suite.ts).
import type { RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

const TASKS = "io.modelcontextprotocol/tasks";

class Reports extends McpServer {
  name = "reports";
  version = "1.0.0";
  readonly built: string[] = [];

  @tool({ description: "Build the month's report", input: { month: z.string() }, task: "optional" })
  async report({ month }: { month: string }, ctx: RequestContext) {
    ctx.progress(1, 2, "Gathering figures");
    const answer = await ctx.elicit({ message: "Include drafts?", schema: { drafts: z.boolean() } });
    this.built.push(month);
    return `Report for ${month}${answer.action === "accept" && answer.content.drafts ? " with drafts" : ""}`;
  }

  @tool({ description: "Import everything", task: { support: "required", ttlMs: 60_000, pollIntervalMs: 50 } })
  importAll() {
    return "imported";
  }

  @tool({ description: "Answers at once" })
  quick() {
    return "quick";
  }
}

const accept = () => ({ action: "accept", content: { drafts: true } });

describe(`@tool({ task }) (${DIALECT})`, () => {
  it("a task tool's call is a task for a client that declared the extension; `this` is the instance", async () => {
    const reports = new Reports();
    const client = await createTestClient(reports, { extensions: { tasks: true }, elicit: accept });
    expect(client.serverResult).toMatchObject({ capabilities: { extensions: { [TASKS]: {} } } });
    const task = await client.task("report", { month: "2026-11" });
    const done = await task.wait({ pollIntervalMs: 5 });
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "Report for 2026-11 with drafts" }] },
    });
    expect(reports.built).toEqual(["2026-11"]);

    // The object form: required, with its own TTL and poll interval.
    const imported = await client.task("importAll");
    expect(imported.created).toMatchObject({ ttlMs: 60_000, pollIntervalMs: 50 });
    expect((await imported.wait({ pollIntervalMs: 5 })).result?.content).toEqual([{ type: "text", text: "imported" }]);
    // A tool without the option never becomes a task.
    expect((await client.callTool("quick")).content).toEqual([{ type: "text", text: "quick" }]);
  });

  it("a client without the extension: optional runs at once, required is refused with -32021", async () => {
    const client = await createTestClient(new Reports(), { elicit: accept });
    expect((await client.callTool("report", { month: "2026-11" })).content).toEqual([
      { type: "text", text: "Report for 2026-11 with drafts" },
    ]);
    await expect(client.callTool("importAll")).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });

  it("the option is the server's own: tools/list shows no trace of it", async () => {
    const client = await createTestClient(new Reports(), { extensions: { tasks: true } });
    for (const listed of await client.listTools()) {
      expect(listed).not.toHaveProperty("task");
      expect(listed).not.toHaveProperty("execution");
    }
  });
});
