import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "./context.js";
import { MetaKey } from "./protocol.js";
import { createServer } from "./server.js";
import { createTestClient } from "./testing.js";

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
