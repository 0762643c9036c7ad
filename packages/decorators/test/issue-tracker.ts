// A newcomer's issue tracker written as a decorated class and tested in memory with createTestClient in both eras:
// what they tripped on (a hidden cause, handlers that behaved per era, no way to cancel, one page of a list, a
// computed list cached publicly) now works the same in both. Run in both decorator dialects (see dialect-suite.ts).

import type { McpError, RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

type Issue = { title: string; open: boolean };

class IssueTracker extends McpServer {
  name = "issue-tracker";
  version = "0.1.0";
  readonly issues = new Map<string, Issue>([
    ["1", { title: "Crash on save", open: true }],
    ["2", { title: "Slow start", open: true }],
    ["3", { title: "Typo in help", open: false }],
  ]);
  /** Resolves once the import is under way (a test waits for it instead of sleeping). */
  importing: Promise<void>;
  #started: () => void = () => {};
  stoppedBecause: unknown;

  constructor() {
    super({ pageSize: 2 });
    this.importing = new Promise((resolve) => {
      this.#started = resolve;
    });
  }

  @tool({ description: "Close an issue after the user confirms", input: { id: z.string() } })
  async close({ id }: { id: string }, ctx: RequestContext) {
    const answer = await ctx.elicit({ message: `Close issue ${id}?`, schema: { reason: z.string() } });
    if (answer.action !== "accept") return `issue ${id} left open (${answer.action})`;
    const issue = this.issues.get(id);
    if (issue) issue.open = false;
    return `closed ${id}: ${answer.content.reason}`;
  }

  @tool({ description: "Import issues from another tracker" })
  async import(_args: Record<string, never>, ctx: RequestContext) {
    ctx.progress(1, 100, "imported 1 of 100");
    this.#started();
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    this.stoppedBecause = ctx.signal.reason;
    return "stopped";
  }

  @resource("issues://{id}", { description: "One issue", mimeType: "application/json", list: "listIssues" })
  issue({ id }: { id: string }) {
    const issue = this.issues.get(id);
    // The newcomer's bug: a missing issue is dereferenced.
    return { title: (issue as Issue).title, open: (issue as Issue).open };
  }

  listIssues() {
    return [...this.issues.keys()].map((id) => ({ uri: `issues://${id}`, name: `issue ${id}` }));
  }

  @prompt({ description: "Triage the open issues" })
  triage(): string {
    throw new RangeError("no triage template yet");
  }
}

class Labels extends McpServer {
  @resource("labels://{name}", { list: "listLabels", listCache: { ttlMs: 5_000, cacheScope: "public" } })
  label({ name }: { name: string }) {
    return name;
  }

  listLabels() {
    return [{ uri: "labels://bug", name: "bug" }];
  }
}

it(`a template's listCache says how its computed list may be cached (${DIALECT})`, async () => {
  const client = await createTestClient(new Labels());
  expect(await client.request("resources/list")).toMatchObject({ ttlMs: 5_000, cacheScope: "public" });
});

describe.each(["2025-11-25", "2026-07-28"] as const)(
  `the newcomer's issue tracker (${DIALECT}, %s)`,
  (protocolVersion) => {
    it("sees the error behind an Internal error as its cause; the wire does not", async () => {
      const client = await createTestClient(new IssueTracker(), { protocolVersion });
      const read = await client.readResource("issues://404").catch((error: unknown) => error);
      expect(read).toMatchObject({ code: -32603, message: "Internal error" });
      expect((read as McpError).cause).toMatchObject({
        name: "TypeError",
        message: "Cannot read properties of undefined (reading 'title')",
      });
      const got = await client.getPrompt("triage").catch((error: unknown) => error);
      expect((got as McpError).cause).toMatchObject({ name: "RangeError", message: "no triage template yet" });
      const wire = client.messages.filter((record) => record.direction === "out" && record.line.includes("error"));
      expect(wire.map((record) => JSON.parse(record.line).error)).toEqual([
        { code: -32603, message: "Internal error" },
        { code: -32603, message: "Internal error" },
      ]);
    });

    it("an expect failing inside elicit fails the call with that assertion; a decline is the tool's answer", async () => {
      const strict = await createTestClient(new IssueTracker(), {
        protocolVersion,
        elicit: (params) => {
          expect(params.message).toBe("Really close issue 1?");
          return { action: "accept", content: { reason: "fixed" } };
        },
      });
      await expect(strict.callTool("close", { id: "1" })).rejects.toThrow("Really close issue 1?");
      const declining = await createTestClient(new IssueTracker(), {
        protocolVersion,
        elicit: () => ({ action: "decline" }),
      });
      expect((await declining.callTool("close", { id: "1" })).content).toEqual([
        { type: "text", text: "issue 1 left open (decline)" },
      ]);
    });

    it("cancels the long import with an AbortSignal: the method sees ctx.signal, the call rejects", async () => {
      const tracker = new IssueTracker();
      const client = await createTestClient(tracker, { protocolVersion });
      const controller = new AbortController();
      const call = client.callTool("import", {}, { signal: controller.signal });
      await tracker.importing;
      controller.abort();
      await expect(call).rejects.toMatchObject({ name: "AbortError" });
      expect(tracker.stoppedBecause).toBeDefined();
    });

    it("lists every issue across pages; the computed list is not cached publicly", async () => {
      const client = await createTestClient(new IssueTracker(), { protocolVersion });
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual([
        "issues://1",
        "issues://2",
        "issues://3",
      ]);
      expect((await client.listResourcesPage()).resources).toHaveLength(2);
      const first = await client.request("resources/list");
      if (protocolVersion === "2026-07-28") expect(first).toMatchObject({ ttlMs: 0, cacheScope: "private" });
      else expect(first).not.toHaveProperty("ttlMs");
    });
  },
);
