import type { JsonRpcNotification, LogEntry } from "@toolsmith/core";
import { type ClientHandler, createTestClient, type TestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
// From source: @toolsmith/vitest lowers its TC39 decorators (vitest.config.ts).
import { IssueTracker } from "./issue-tracker.js";

const ERAS = ["2025-11-25", "2026-07-28"] as const;
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

const ofMethod = (notifications: readonly JsonRpcNotification[], method: string) =>
  notifications.filter((notification) => notification.method === method).map((notification) => notification.params);

// Event-loop turns, not time: what the server sends while a call runs lands within a few of them.
async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let turn = 0; turn < 1000; turn++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function seeded(client: TestClient) {
  await client.callTool("create_issue", { title: "Login fails", labels: ["bug", "auth"] });
  await client.callTool("create_issue", { title: "Slow build", labels: ["build"] });
  await client.callTool("create_issue", { title: "Docs typo", labels: ["docs"] });
}

describe.each(ERAS)("IssueTracker in memory (%s)", (protocolVersion) => {
  it("creates, lists and reads issues; the template lists and completes them from the tracker's state", async () => {
    const client = await createTestClient(new IssueTracker(), { protocolVersion });
    await seeded(client);
    expect((await client.callTool("list_issues", { label: "bug" })).structuredContent).toEqual({
      issues: [{ id: "1", title: "Login fails", labels: ["bug", "auth"], state: "open" }],
    });
    const { contents } = await client.readResource("issues://2");
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ title: "Slow build", state: "open" });
    expect((await client.listResources()).map((r) => r.name)).toEqual([
      "#1 Login fails",
      "#2 Slow build",
      "#3 Docs typo",
    ]);
    const ref = { type: "ref/resource", uri: "issues://{id}" } as const;
    expect((await client.complete(ref, { name: "id", value: "" })).values).toEqual(["1", "2", "3"]);
    const triage = { type: "ref/prompt", name: "triage" } as const;
    expect((await client.complete(triage, { name: "label", value: "b" })).values).toEqual(["bug", "build"]);
    // Another tracker, other issues: its completions are its own.
    const other = await createTestClient(new IssueTracker(), { protocolVersion });
    await other.callTool("create_issue", { title: "Crash", labels: ["bug"] });
    expect((await other.complete(ref, { name: "id", value: "" })).values).toEqual(["1"]);
    expect((await other.complete(triage, { name: "label", value: "b" })).values).toEqual(["bug"]);
    const { messages } = await client.getPrompt("triage", { label: "bug" });
    expect(messages[0]?.content).toMatchObject({ text: expect.stringContaining("- #1 Login fails") });
  });

  it("asks before closing, and before opening a second issue with the same title; a no changes nothing", async () => {
    let answer: Record<string, unknown> = { action: "accept", content: { reason: "completed" } };
    const elicit: ClientHandler = () => answer;
    const client = await createTestClient(new IssueTracker(), { protocolVersion, elicit });
    await seeded(client);
    expect(await client.callTool("close_issue", { id: "1" })).toMatchObject({
      content: [{ text: "Closed #1 as completed" }],
    });
    answer = { action: "decline" };
    expect(await client.callTool("close_issue", { id: "2" })).toMatchObject({ content: [{ text: "#2 stays open" }] });
    expect((await client.callTool("create_issue", { title: "Slow build" })).structuredContent).toEqual({
      id: "2",
      created: false,
    });
    answer = { action: "accept", content: { confirm: true } };
    expect((await client.callTool("create_issue", { title: "Slow build" })).structuredContent).toEqual({
      id: "4",
      created: true,
    });
    expect((await client.callTool("list_issues", { state: "closed" })).structuredContent).toMatchObject({
      issues: [{ id: "1", state: "closed" }],
    });
    expect(await client.callTool("close_issue", { id: "9" })).toMatchObject({ isError: true });
  });

  it("refuses an import of more lines than one call may bring, before it writes any", async () => {
    const client = await createTestClient(new IssueTracker(), { protocolVersion });
    // 4 MiB of body is a million one-letter lines: a million issues from one call, a store full for everyone.
    const result = await client.callTool("import_issues", { lines: Array.from({ length: 1001 }, () => "a") });
    expect(result.isError).toBe(true);
    expect((await client.callTool("list_issues")).structuredContent).toEqual({ issues: [] });
    const most = await client.callTool("import_issues", {
      lines: Array.from({ length: 1000 }, (_, n) => `issue ${n}`),
    });
    expect((most.structuredContent as { imported: string[] }).imported).toHaveLength(1000);
  });

  it("imports with progress and logs, under the tool's name", async () => {
    const client = await createTestClient(new IssueTracker(), { protocolVersion });
    const { result, notifications } = await client.exchange("tools/call", {
      name: "import_issues",
      arguments: { lines: ["Flaky test | ci, bug", " | ", "Dark mode | ui"] },
      _meta: { progressToken: "import-1", [LOG_LEVEL]: "info" },
    });
    expect(result.structuredContent).toEqual({ imported: ["1", "2"] });
    expect(ofMethod(notifications, "notifications/progress").map((params) => params?.progress)).toEqual([0, 1, 3]);
    expect(ofMethod(notifications, "notifications/message")).toEqual([
      { level: "info", logger: "import_issues", data: { message: "import started", data: { lines: 3 } } },
      { level: "warning", logger: "import_issues", data: { message: "line skipped: no title", data: { line: 2 } } },
      { level: "info", logger: "import_issues", data: { message: "import done", data: { imported: 2 } } },
    ]);
    expect((await client.callTool("list_issues", { label: "ci" })).structuredContent).toMatchObject({
      issues: [{ title: "Flaky test", labels: ["ci", "bug"] }],
    });
  });

  it("a cancelled import stops: the call rejects with an AbortError, and nothing is imported", async () => {
    const tracker = new IssueTracker({ importDelayMs: 60_000 });
    const stopped = new Promise<LogEntry>((resolve) => {
      tracker.toServer().setLogger((entry) => entry.tool === "import_issues" && resolve(entry));
    });
    const client = await createTestClient(tracker, { protocolVersion });
    const stop = new AbortController();
    const params = { name: "import_issues", arguments: { lines: ["A", "B"] }, _meta: { progressToken: 1 } };
    const running = client.exchange("tools/call", params, { signal: stop.signal });
    await until(() => ofMethod(client.notifications, "notifications/progress")[0], "the import to start");
    stop.abort();
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    expect(await stopped).toMatchObject({ level: "debug", message: expect.stringContaining("AbortError") });
    expect((await client.callTool("list_issues")).structuredContent).toEqual({ issues: [] });
  });

  it("builds the report with progress, asks once whether to publish, and says what it found", async () => {
    const asked: unknown[] = [];
    const elicit: ClientHandler = (params) => {
      asked.push(params.message);
      return { action: "accept", content: { publish: true } };
    };
    const client = await createTestClient(new IssueTracker(), { protocolVersion, elicit });
    await seeded(client);
    const result = await client.callTool("build_report", { seconds: 0 });
    expect(result.structuredContent).toEqual({
      open: 3,
      closed: 0,
      byLabel: { bug: 1, auth: 1, build: 1, docs: 1 },
      published: true,
    });
    expect(asked).toEqual(["The report is ready: 3 open, 0 closed. Publish it to the team?"]);
  });

  it("a subscriber hears when its issue changes", async () => {
    const elicit: ClientHandler = () => ({ action: "accept", content: { reason: "not_planned" } });
    const client = await createTestClient(new IssueTracker(), { protocolVersion, elicit });
    await seeded(client);
    if (protocolVersion === "2026-07-28") {
      const stream = await client.listen({ resourceSubscriptions: ["issues://3"] });
      await client.callTool("close_issue", { id: "1" });
      await client.callTool("close_issue", { id: "3" });
      expect(await stream.next()).toMatchObject({ params: { uri: "issues://3" } });
      expect(stream.notifications).toHaveLength(1);
      await stream.close();
      return;
    }
    await client.request("resources/subscribe", { uri: "issues://3" });
    await client.callTool("close_issue", { id: "1" });
    await client.callTool("close_issue", { id: "3" });
    const updated = await until(() => ofMethod(client.notifications, "notifications/resources/updated")[0], "update");
    expect(updated).toEqual({ uri: "issues://3" });
    expect(ofMethod(client.notifications, "notifications/resources/updated")).toHaveLength(1);
  });

  it("a read-only tracker offers no tool that writes, and answers a call to one as for one that does not exist", async () => {
    const client = await createTestClient(new IssueTracker({ readOnly: true }), { protocolVersion });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["list_issues"]);
    await expect(client.callTool("create_issue", { title: "x" })).rejects.toThrow("Unknown tool: create_issue");
  });
});
