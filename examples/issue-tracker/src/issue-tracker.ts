import { setTimeout as sleep } from "node:timers/promises";
import type { RequestContext, Store } from "@toolsmith/core";
import { type Args, McpServer, type McpServerOptions, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";

const IssueSchema = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  labels: z.array(z.string()),
  state: z.enum(["open", "closed"]),
  closedAs: z.enum(["completed", "not_planned"]).optional(),
});
export type Issue = z.infer<typeof IssueSchema>;

// An issue's key in the server's store: its id zero-padded, so the store's key order is the order of ids.
const issueKey = (id: number | string) => `issue:${String(id).padStart(10, "0")}`;
const ISSUE_ID = /^[1-9]\d{0,9}$/;

/** Every issue, in id order, a page of the store at a time. */
async function allIssues(store: Store): Promise<Issue[]> {
  const issues: Issue[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({
      prefix: "issue:",
      schema: IssueSchema,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const { value } of page.items) issues.push(value);
    cursor = page.nextCursor;
  } while (cursor);
  return issues;
}

/** The issue `id`, or undefined (an id that is not a number names none). */
function readIssue(store: Store, id: string): Promise<Issue | undefined> {
  return ISSUE_ID.test(id) ? store.get(issueKey(id), IssueSchema) : Promise.resolve(undefined);
}

/**
 * The task limits of a tracker anyone who reaches its port may use (`main.ts --http`): each caller (an anonymous one
 * by its address) runs at most 3 reports at once and keeps at most 30, each for half an hour.
 */
export const SHARED_TASKS = { ttlMs: 30 * 60_000, maxPerCaller: 3, maxStoredPerCaller: 30 } as const;

export interface IssueTrackerOptions {
  /** A read-only tracker lists and reads, but offers no tool that writes. */
  readOnly?: boolean;
  /** How long importing one row takes (the real tracker's API is slow). */
  importDelayMs?: number;
  /** Server options beyond the tracker's own (an engine, a shared stateKey). */
  server?: McpServerOptions;
}

const Create = {
  title: z.string().min(1).max(200),
  body: z.string().max(10_000).default(""),
  labels: z.array(z.string().min(1)).max(10).default([]),
};
const List = { state: z.enum(["open", "closed", "all"]).default("open"), label: z.string().optional() };
const Close = { id: z.string() };
const Report = {
  seconds: z.number().min(0).max(600).default(60).describe("how long building the report takes (a real one: a minute)"),
};
// At most IMPORT_LINES a call: a 4 MiB body of one-letter lines would otherwise be a million issues from one call.
const IMPORT_LINES = 1000;
const Import = {
  lines: z
    .array(z.string())
    .min(1)
    .max(IMPORT_LINES)
    .describe(`one issue a line: "title | label, label"; at most ${IMPORT_LINES}`),
};
const Triage = { label: z.string().describe("which label to triage") };

/**
 * An issue tracker kept in the server's store (`ctx.store`: the engine's, so every process sharing a Redis engine
 * tracks the same issues): tools change it, issues://{id} reads (and watches) one issue.
 */
export class IssueTracker extends McpServer {
  name = "issue-tracker";
  version = "0.1.0";
  instructions =
    "Track issues: create_issue, list_issues, close_issue, import_issues, build_report. issues://{id} is one issue.";
  readonly #readOnly: boolean;
  readonly #importDelayMs: number;

  constructor(options: IssueTrackerOptions = {}) {
    super(options.server);
    this.#readOnly = options.readOnly ?? false;
    this.#importDelayMs = options.importDelayMs ?? 0;
  }

  @tool({
    description: "Open an issue; asks first when an open issue has the same title.",
    input: Create,
    guard: "writable",
  })
  async create_issue({ title, body, labels }: Args<typeof Create>, ctx: RequestContext) {
    const twin = (await allIssues(ctx.store)).find((issue) => issue.state === "open" && issue.title === title);
    if (twin) {
      const answer = await ctx.elicit({
        message: `#${twin.id} is open with the same title. Open another one?`,
        schema: { confirm: z.boolean().describe("open a second issue anyway") },
      });
      if (answer.action !== "accept" || !answer.content.confirm) return { id: twin.id, created: false };
    }
    const issue = await this.#add(ctx.store, title, body, labels);
    ctx.log.info("issue created", { id: issue.id, labels });
    return { id: issue.id, created: true };
  }

  @tool({ description: "List issues, open ones by default, optionally with one label.", input: List })
  async list_issues({ state, label }: Args<typeof List>, ctx: RequestContext) {
    const issues = (await allIssues(ctx.store))
      .filter((issue) => (state === "all" || issue.state === state) && (!label || issue.labels.includes(label)))
      .map(({ id, title, labels, state }) => ({ id, title, labels, state }));
    return { issues };
  }

  @tool({ description: "Close an issue; the user confirms and says why.", input: Close, guard: "writable" })
  async close_issue({ id }: Args<typeof Close>, ctx: RequestContext) {
    const issue = await this.#issue(ctx.store, id);
    if (issue.state === "closed") return `#${id} is already closed`;
    // In 2026-07-28 this runs again with the answer: nothing changes before the question.
    const answer = await ctx.elicit({
      message: `Close #${id} "${issue.title}"?`,
      schema: { reason: z.enum(["completed", "not_planned"]).describe("why it is closed") },
    });
    if (answer.action !== "accept") return `#${id} stays open`;
    const reason = answer.content.reason;
    // Atomic: an issue another process closed meanwhile keeps the reason it was closed with.
    let closed = false;
    await ctx.store.update(
      issueKey(id),
      (now) => {
        closed = now?.state === "open";
        return now?.state === "open" ? { ...now, state: "closed" as const, closedAs: reason } : now;
      },
      { schema: IssueSchema },
    );
    if (!closed) return `#${id} is already closed`;
    this.toServer().resourceUpdated(`issues://${id}`);
    return `Closed #${id} as ${reason}`;
  }

  @tool({
    description: "Import issues, one a line; reports progress, and stops when cancelled.",
    input: Import,
    guard: "writable",
  })
  async import_issues({ lines }: Args<typeof Import>, ctx: RequestContext) {
    ctx.log.info("import started", { lines: lines.length });
    ctx.progress(0, lines.length, "importing");
    const ids: string[] = [];
    for (const [index, line] of lines.entries()) {
      // The remote API's latency; a cancelled call stops here, keeping what it imported.
      await sleep(this.#importDelayMs, undefined, { signal: ctx.signal });
      const [title = "", labels = ""] = line.split("|").map((part) => part.trim());
      if (!title) {
        ctx.log.warning("line skipped: no title", { line: index + 1 });
        continue;
      }
      ids.push(
        (
          await this.#add(
            ctx.store,
            title,
            "",
            labels
              .split(",")
              .map((label) => label.trim())
              .filter(Boolean),
          )
        ).id,
      );
      ctx.progress(index + 1, lines.length, `imported ${title}`);
    }
    ctx.log.info("import done", { imported: ids.length });
    return { imported: ids };
  }

  @tool({
    description: "Build the weekly report (about a minute): progress as it goes, then asks whether to publish it.",
    input: Report,
    // A client that speaks the tasks extension gets a task to poll; any other waits for the answer as usual.
    task: "optional",
    // It may publish: a read-only tracker does not offer it.
    guard: "writable",
  })
  async build_report({ seconds }: Args<typeof Report>, ctx: RequestContext) {
    // Built once: in 2026-07-28 without tasks the client's retry with the answer runs this handler again, and
    // ctx.keep hands it the report the first run built instead of building it a second time.
    const report = await ctx.keep("report", async () => {
      ctx.log.info("building the report", { seconds });
      const issues = await allIssues(ctx.store);
      const steps = ["open issues", "closed issues", "labels", "trends", "summary"];
      const byLabel: Record<string, number> = {};
      for (const [index, step] of steps.entries()) {
        ctx.progress(index, steps.length, `counting ${step}`);
        // The slow part of a real report (queries, charts); a cancelled task stops here.
        await sleep((seconds * 1000) / steps.length, undefined, { signal: ctx.signal });
        if (step === "labels")
          for (const issue of issues) for (const l of issue.labels) byLabel[l] = (byLabel[l] ?? 0) + 1;
      }
      ctx.progress(steps.length, steps.length, "report built");
      const open = issues.filter((issue) => issue.state === "open").length;
      return { open, closed: issues.length - open, byLabel };
    });
    const answer = await ctx.elicit({
      message: `The report is ready: ${report.open} open, ${report.closed} closed. Publish it to the team?`,
      schema: { publish: z.boolean().describe("post the report to the team channel") },
    });
    const published = answer.action === "accept" && answer.content.publish;
    return { ...report, published };
  }

  @resource("issues://{id}", {
    description: "One issue, live: subscribe to hear when it changes.",
    mimeType: "application/json",
    list: "listIssues",
    complete: { id: "issueIds" },
  })
  issue({ id }: { id: string }, ctx: RequestContext) {
    return readIssue(ctx.store, id);
  }

  async listIssues(ctx: RequestContext) {
    return (await allIssues(ctx.store)).map((issue) => ({
      uri: `issues://${issue.id}`,
      name: `#${issue.id} ${issue.title}`,
    }));
  }

  async issueIds(value: string, { ctx }: { ctx: RequestContext }) {
    return (await allIssues(ctx.store)).map((issue) => issue.id).filter((id) => id.startsWith(value));
  }

  @prompt({ description: "Triage the open issues with a label.", args: Triage, complete: { label: "labelsLike" } })
  async triage({ label }: Args<typeof Triage>, ctx: RequestContext) {
    const open = (await allIssues(ctx.store)).filter((issue) => issue.state === "open" && issue.labels.includes(label));
    const list = open.map((issue) => `- #${issue.id} ${issue.title}`).join("\n") || "(none)";
    return `Triage these open "${label}" issues: order them by urgency and say which to close.\n${list}`;
  }

  async labelsLike(value: string, { ctx }: { ctx: RequestContext }) {
    const labels = new Set((await allIssues(ctx.store)).flatMap((issue) => issue.labels));
    return [...labels].filter((label) => label.startsWith(value)).sort();
  }

  writable() {
    return !this.#readOnly;
  }

  async #add(store: Store, title: string, body: string, labels: string[]): Promise<Issue> {
    // An id no other process gives: the counter's atomic update, then the issue under it.
    const id = String(await store.update("next-id", (last: number | undefined) => (last ?? 0) + 1));
    const issue: Issue = { id, title, body, labels, state: "open" };
    await store.set(issueKey(id), issue);
    return issue;
  }

  async #issue(store: Store, id: string): Promise<Issue> {
    const issue = await readIssue(store, id);
    if (!issue) throw new Error(`There is no issue #${id}; list_issues shows them`);
    return issue;
  }
}
