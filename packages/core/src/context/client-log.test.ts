import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import type { RequestContext } from "./context.js";

// ctx.log reads as a console or pino user expects: a message and optional data, in either order; the MCP logger
// name is the tool's, resource's or prompt's, or one given with named().

function server(log: (ctx: RequestContext) => void) {
  const s = createServer({ name: "log-shape", version: "1" });
  const logThen = (ctx: RequestContext, answer: string) => {
    log(ctx);
    return answer;
  };
  s.tool({ name: "import_issues", description: "Logs", handler: (_args, ctx) => logThen(ctx, "ok") });
  s.resource({ uri: "issues://all", name: "all_issues", handler: (ctx) => logThen(ctx, "all") });
  s.resource({ uriTemplate: "issues://{id}", name: "issue", handler: (_vars, ctx) => logThen(ctx, "one") });
  s.prompt({ name: "triage", args: { label: z.string() }, handler: (_args, ctx) => logThen(ctx, "triage") });
  return s;
}

const ERAS = [
  ["2025-11-25", {}],
  ["2026-07-28", { _meta: { [MetaKey.logLevel]: "debug" } }],
] as const;

describe.each(ERAS)("ctx.log's messages (%s)", (protocolVersion, asked) => {
  async function logged(log: (ctx: RequestContext) => void, method = "tools/call", params = {}) {
    const client = await createTestClient(server(log), { protocolVersion });
    const { notifications } = await client.exchange(method, { name: "import_issues", ...params, ...asked });
    return notifications.filter((n) => n.method === "notifications/message").map((n) => n.params);
  }

  it("a message, with data after it or (as pino writes it) before it, under the tool's name", async () => {
    const sent = await logged((ctx) => {
      ctx.log.info("import started");
      ctx.log.info("import started", { rows: 120 });
      ctx.log.info({ rows: 120 }, "import started");
      ctx.log.debug({ rows: 120 });
      ctx.log.warning(["a", "b"], "skipped");
    });
    expect(sent).toEqual([
      { level: "info", logger: "import_issues", data: "import started" },
      { level: "info", logger: "import_issues", data: { message: "import started", data: { rows: 120 } } },
      { level: "info", logger: "import_issues", data: { message: "import started", data: { rows: 120 } } },
      { level: "debug", logger: "import_issues", data: { rows: 120 } },
      { level: "warning", logger: "import_issues", data: { message: "skipped", data: ["a", "b"] } },
    ]);
  });

  it("named(name) logs under another name; an Error goes as its name and message, not its stack", async () => {
    const sent = await logged((ctx) => {
      const github = ctx.log.named("github");
      github.error(new TypeError("rate limited"), "fetch failed");
      github.notice("retrying");
      ctx.log.info("done");
    });
    expect(sent).toEqual([
      {
        level: "error",
        logger: "github",
        data: { message: "fetch failed", data: { name: "TypeError", message: "rate limited" } },
      },
      { level: "notice", logger: "github", data: "retrying" },
      { level: "info", logger: "import_issues", data: "done" },
    ]);
  });

  it("data is sent as a console would show it: circular references, BigInts, nested Errors, Maps and Sets", async () => {
    const issue: Record<string, unknown> = { id: 7, labels: new Set(["bug"]), by: new Map([["ada", 2n]]) };
    issue.self = issue;
    const failure = Object.assign(new Error("rate limited"), { status: 429 });
    const sent = await logged((ctx) => {
      ctx.log.info("loaded", issue);
      ctx.log.error({ err: failure, at: new Date(0) }, "fetch failed");
      ctx.log.debug((() => 1) as never);
    });
    expect(sent).toEqual([
      {
        level: "info",
        logger: "import_issues",
        data: {
          message: "loaded",
          data: { id: 7, labels: ["bug"], by: { ada: "2" }, self: "[Circular]" },
        },
      },
      {
        level: "error",
        logger: "import_issues",
        data: {
          message: "fetch failed",
          data: { err: { name: "Error", message: "rate limited", status: 429 }, at: "1970-01-01T00:00:00.000Z" },
        },
      },
      { level: "debug", logger: "import_issues", data: null },
    ]);
    expect(JSON.stringify(sent)).not.toContain("at ");
  });

  it("a resource's and a prompt's messages carry their own names", async () => {
    const log = (ctx: RequestContext) => ctx.log.info("read");
    const loggers = await Promise.all([
      logged(log, "resources/read", { uri: "issues://all" }),
      logged(log, "resources/read", { uri: "issues://7" }),
      logged(log, "prompts/get", { name: "triage", arguments: { label: "bug" } }),
    ]);
    expect(loggers.map((sent) => sent.map((params) => params?.logger))).toEqual([
      ["all_issues"],
      ["issue"],
      ["triage"],
    ]);
  });
});

it("the second argument is data, not a logger name: the old call does not compile", () => {
  const typeOnly = (ctx: RequestContext) => {
    // @ts-expect-error: a string after the message is not data; name the logger with ctx.log.named("booking")
    ctx.log.info("flight found", "booking");
    ctx.log.named("booking").info("flight found", { flight: "BA1" });
  };
  expect(typeOnly).toBeTypeOf("function");
});

describe.each(ERAS)(
  "the logger name of what serves no tool, resource or prompt itself (%s)",
  (protocolVersion, asked) => {
    it("middleware around a call, a completer and a template's list log under the name of what they serve", async () => {
      const s = createServer({ name: "names", version: "1" });
      s.use((operation, next) => {
        if (operation.kind === "call") operation.ctx.log.info("before the call");
        return next();
      });
      s.tool({ name: "close_issue", description: "Close", handler: () => "closed" });
      const listed = (name: string) => (ctx: RequestContext) => {
        ctx.log.info(`listing ${name}`);
        return [{ uri: `${name}://1`, name: `${name} 1` }];
      };
      s.resource({ uriTemplate: "issues://{id}", name: "issue", list: listed("issues"), handler: () => "x" });
      s.resource({ uriTemplate: "labels://{id}", name: "label", list: listed("labels"), handler: () => "x" });
      s.prompt({
        name: "triage",
        args: { label: z.string() },
        complete: {
          label: (_value, { ctx }) => {
            ctx.log.info("completing");
            return ["bug"];
          },
        },
        handler: () => "x",
      });
      const module = createServer({ name: "github", version: "1" });
      module.prompt({
        name: "review",
        args: { pr: z.string() },
        complete: {
          pr: (_value, { ctx }) => {
            ctx.log.info("completing in a module");
            return ["1"];
          },
        },
        handler: () => "x",
      });
      s.mount("github", module);
      const client = await createTestClient(s, { protocolVersion });
      const complete = (name: string, argument: string) =>
        client.exchange("completion/complete", {
          ref: { type: "ref/prompt", name },
          argument: { name: argument, value: "" },
          ...asked,
        });
      const exchanges = [
        await client.exchange("tools/call", { name: "close_issue", ...asked }),
        await client.exchange("resources/list", { ...asked }),
        await complete("triage", "label"),
        await complete("github.review", "pr"),
      ];
      const sent = exchanges.flatMap(({ notifications }) =>
        notifications.map((n) => [n.params?.logger, n.params?.data]),
      );
      expect(sent).toEqual([
        ["close_issue", "before the call"],
        ["issue", "listing issues"],
        ["label", "listing labels"],
        ["triage", "completing"],
        ["github.review", "completing in a module"],
      ]);
    });
  },
);
