import { type ClientHandler, createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
// From source: @toolsmith/vitest lowers its TC39 decorators (vitest.config.ts).
import { IssueTracker } from "./issue-tracker.js";

// build_report asks one question after its slow part. In 2026-07-28 without tasks the client's retry runs the handler
// again: ctx.keep hands it the report the first run built, so the slow part runs once per call, in every era.

const LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const publish: ClientHandler = () => ({ action: "accept", content: { publish: true } });

describe.each(["2025-11-25", "2026-07-28"] as const)("build_report (%s, no tasks)", (protocolVersion) => {
  it("builds the report once, reports its progress once, and asks once", async () => {
    const tracker = new IssueTracker();
    const client = await createTestClient(tracker, { protocolVersion, elicit: publish });
    await client.callTool("create_issue", { title: "Login fails", labels: ["bug"] });
    const { result, rounds, notifications, requests } = await client.exchange("tools/call", {
      name: "build_report",
      arguments: { seconds: 0 },
      _meta: { progressToken: "report", [LOG_LEVEL]: "info" },
    });
    expect(result.structuredContent).toEqual({ open: 1, closed: 0, byLabel: { bug: 1 }, published: true });
    expect(rounds).toBe(protocolVersion === "2026-07-28" ? 1 : 0);
    expect(requests.map((request) => request.method)).toEqual(["elicitation/create"]);
    const said = (method: string) => notifications.filter((note) => note.method === method).map((note) => note.params);
    expect(said("notifications/message")).toEqual([
      {
        level: "info",
        logger: "build_report",
        data: { message: "building the report", data: { seconds: 0 } },
      },
    ]);
    expect(said("notifications/progress").map((params) => params?.message)).toEqual([
      "counting open issues",
      "counting closed issues",
      "counting labels",
      "counting trends",
      "counting summary",
      "report built",
    ]);
  });
});
