// The server every transport serves to the shared suite: one small tool, resource or prompt per feature.
// Run as a script (node dist/fixture-server.js) it serves over stdio; FIXTURE=paged gives pageSize 2, FIXTURE=tasks
// the tasks fixture (tasks-fixture.ts).
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import {
  audio,
  createServer,
  embeddedResource,
  image,
  type Logger,
  resourceLink,
  type Server,
  text,
} from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";
import { createTasksFixture } from "./tasks-fixture.js";

export type FixtureName = "main" | "paged" | "tasks";

/** The longest message either transport is told to accept (stdio maxLineBytes, HTTP maxBodyBytes). */
export const LIMIT_BYTES = 64 * 1024;

export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
export const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

export const WATCHED_URI = "fixture://watched";
export const OTHER_URI = "fixture://other";
/** A resource fed by the store key "board": a change to it through the store announces it. */
export const BOARD_URI = "fixture://board";
/** The tool `toggle` enables and disables. */
export const HIDDEN_TOOL = "extra";

const STYLES = ["formal", "friendly", "funny", "plain"];
const ITEMS = new Map([
  ["1", "Item one"],
  ["2", "Item two"],
  ["3", "Item three"],
  ["10", "Item ten"],
]);

export interface FixtureOptions {
  pageSize?: number;
  logger?: Logger;
  /** Default: core's memory engine; a shared one (Redis) serves a session from several processes. */
  engine?: Engine;
}

/** A fresh fixture server: its state (the hidden tool, cancellations seen) is its own. */
export function createFixtureServer(options: FixtureOptions = {}): Server {
  const server = createServer({
    name: "transport-fixture",
    version: "1.0.0",
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.engine ? { engine: options.engine } : {}),
  });
  let cancellations = 0;

  // ── Tools: results ──
  server.tool({
    name: "echo",
    description: "Return the text",
    input: { text: z.string() },
    handler: ({ text }) => text,
  });
  server.tool({
    name: "add",
    description: "Add two numbers, as structured output",
    input: { a: z.number(), b: z.number() },
    output: z.object({ sum: z.number() }),
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  server.tool({
    name: "content",
    description: "Return one block of each content type",
    handler: () => [
      text("plain text"),
      image(PNG, "image/png"),
      audio(WAV, "audio/wav"),
      resourceLink({ uri: "fixture://readme", name: "readme", mimeType: "text/plain" }),
      embeddedResource("fixture://embedded", "embedded text", { mimeType: "text/plain" }),
    ],
  });
  server.tool({
    name: "fail",
    description: "Throw an error",
    handler: () => {
      throw new Error("the fixture failed on purpose");
    },
  });
  server.tool({
    name: "size",
    description: "Count the characters of data",
    input: { data: z.string() },
    handler: ({ data }) => ({ length: data.length }),
  });

  // ── Tools: notifications while a call runs ──
  server.tool({
    name: "count",
    description: "Report progress from 1 to `to`",
    input: { to: z.number().int().min(1).max(20) },
    handler: async ({ to }, ctx) => {
      for (let step = 1; step <= to; step++) {
        ctx.progress(step, to, `step ${step}`);
        await delay(1);
      }
      return `counted to ${to}`;
    },
  });
  server.tool({
    name: "chatty",
    description: "Log at debug, info and warning",
    handler: (_args, ctx) => {
      ctx.log.debug("debug line");
      ctx.log.info("info line");
      ctx.log.named("fixture").warning({ note: "warning line" }, "heads up");
      return "logged";
    },
  });
  server.tool({
    name: "slow",
    description: "Say it started, then wait until cancelled (10 minutes at most: a loaded machine may be slow to)",
    handler: async (_args, ctx) => {
      ctx.progress(1, 2, "started");
      try {
        await delay(10 * 60_000, undefined, { signal: ctx.signal });
      } catch (error) {
        cancellations++;
        throw error;
      }
      return "finished";
    },
  });
  server.tool({
    name: "cancellations",
    description: "How many slow calls were cancelled",
    handler: () => ({ cancellations }),
  });

  // ── Tools: asking the client ──
  server.tool({
    name: "ask_name",
    description: "Ask the user their name (as `role`, when given)",
    input: { role: z.string().optional() },
    handler: async ({ role }, ctx) => {
      const message = role === undefined ? "What is your name?" : `What is your name, ${role}?`;
      const answer = await ctx.elicit({ message, schema: { name: z.string() } });
      return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
    },
  });
  server.tool({
    name: "open_page",
    description: "Send the user to a URL",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "url", message: "Sign in, please", url: "https://example.com/sign-in" });
      return `url: ${answer.action}`;
    },
  });
  server.tool({
    name: "summarize",
    description: "Have the client's model summarize the text",
    input: { text: z.string() },
    handler: async ({ text }, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 50 });
      const block = (Array.isArray(answer.content) ? answer.content[0] : answer.content) as { text?: string };
      return `${answer.model}: ${block?.text}`;
    },
  });
  server.tool({
    name: "interview",
    description: "Ask the user, then the model: one question after the other",
    handler: async (_args, ctx) => {
      const name = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
      const who = name.action === "accept" ? name.content.name : "nobody";
      const answer = await ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: `greet ${who}` } }],
        maxTokens: 50,
      });
      const block = (Array.isArray(answer.content) ? answer.content[0] : answer.content) as { text?: string };
      return `${who}: ${block?.text}`;
    },
  });
  // How often each report's slow part ran, by the tag its caller gave.
  const computed = new Map<string, number>();
  server.tool({
    name: "kept_report",
    description: "Count the rows (slowly, with progress, kept by ctx.keep), then ask whether to publish",
    input: { tag: z.string(), rows: z.number().int().min(0).max(5000) },
    handler: async ({ tag, rows }, ctx) => {
      const table = await ctx.keep("table", () => {
        computed.set(tag, (computed.get(tag) ?? 0) + 1);
        for (let step = 1; step <= 3; step++) ctx.progress(step, 4, `counting ${step}`);
        return Array.from({ length: rows }, (_, id) => `row ${id}`);
      });
      ctx.progress(4, 4, "counted");
      const answer = await ctx.elicit({ message: "Publish the report?", schema: { name: z.string() } });
      return { rows: table.length, last: table.at(-1) ?? null, computed: computed.get(tag), answer: answer.action };
    },
  });
  server.tool({
    name: "list_roots",
    description: "Name the client's roots",
    handler: async (_args, ctx) => ({ roots: (await ctx.roots()).map((root) => root.uri) }),
  });

  // ── Tools: changes ──
  const hidden = server.tool({
    name: HIDDEN_TOOL,
    description: "Listed only while toggled on",
    handler: () => "extra called",
  });
  hidden.disable();
  server.tool({
    name: "toggle",
    description: `Enable or disable the ${HIDDEN_TOOL} tool`,
    handler: () => {
      if (hidden.enabled) hidden.disable();
      else hidden.enable();
      return { enabled: hidden.enabled };
    },
  });
  server.tool({
    name: "touch",
    description: "Tell subscribers the resource changed",
    input: { uri: z.string() },
    handler: ({ uri }) => {
      server.resourceUpdated(uri);
      return "touched";
    },
  });

  server.tool({
    name: "region",
    description: "Return the region, an argument the client mirrors in a header (2026-07-28 over HTTP)",
    input: { region: z.string().meta({ "x-mcp-header": "Region" }) },
    handler: ({ region }) => region,
  });

  // ── Tools: hostile keys ──
  server.tool({
    name: "keys",
    description: "Echo arguments whose names are Object.prototype's",
    input: { constructor: z.string(), toString: z.string() },
    handler: (args) => ({ constructor: args.constructor, toString: args.toString }),
  });
  server.tool({
    name: "inspect",
    description: "Name the own keys of the arguments, and whether Object.prototype was polluted",
    input: z.looseObject({}),
    handler: (args) => ({
      keys: Object.keys(args).sort(),
      prototypeIsObject: Object.getPrototypeOf(args) === Object.prototype,
      polluted: "polluted" in {},
    }),
  });

  // ── The store ──
  server.tool({
    name: "store_put",
    description: "Keep a value in the server's store",
    input: { key: z.string(), value: z.string() },
    handler: async ({ key, value }, ctx) => {
      await ctx.store.set(key, value);
      return "kept";
    },
  });
  server.tool({
    name: "store_get",
    description: "Read a value of the server's store",
    input: { key: z.string() },
    handler: async ({ key }, ctx) => String((await ctx.store.get(key)) ?? "(none)"),
  });
  server.tool({
    name: "session_visits",
    description: "Count this session's calls, in the session's own store",
    handler: async (_args, ctx) =>
      String(await ctx.store.session.update("visits", (n: number | undefined) => (n ?? 0) + 1)),
  });
  server.resource({
    uri: BOARD_URI,
    name: "board",
    mimeType: "text/plain",
    storeKey: "board",
    handler: async () => String((await server.store.get("board")) ?? ""),
  });

  // ── Resources ──
  server.resource({ uri: "fixture://readme", name: "readme", mimeType: "text/plain", handler: () => "Read me first." });
  server.resource({ uri: "fixture://logo", name: "logo", mimeType: "image/png", handler: () => ({ blob: PNG }) });
  server.resource({ uri: WATCHED_URI, name: "watched", mimeType: "text/plain", handler: () => "watched" });
  server.resource({ uri: OTHER_URI, name: "other", mimeType: "text/plain", handler: () => "other" });
  server.resource({
    uriTemplate: "fixture://items/{id}",
    name: "item",
    mimeType: "text/plain",
    handler: ({ id }) => (typeof id === "string" ? ITEMS.get(id) : undefined),
    complete: { id: (value) => [...ITEMS.keys()].filter((id) => id.startsWith(value)) },
  });

  // ── Prompts ──
  server.prompt({
    name: "greet",
    description: "Greet someone in a style",
    args: { name: z.string(), style: z.string().optional() },
    complete: {
      style: (value) => STYLES.filter((style) => style.startsWith(value)),
      name: (value, { arguments: filled }) =>
        (filled.style === "formal" ? ["Dr. Ada", "Dr. Ben"] : ["Ada", "Ben"]).filter((name) =>
          name.toLowerCase().includes(value.toLowerCase()),
        ),
    },
    handler: ({ name, style }) => `Say a ${style ?? "plain"} hello to ${name}.`,
  });
  server.prompt({
    name: "personal",
    description: "A greeting for the user, whose name it asks",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
      return `Greet ${answer.action === "accept" ? answer.content.name : "someone"}.`;
    },
  });
  server.prompt({ name: "simple", description: "A prompt without arguments", handler: () => "Just say hi." });

  return server;
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && import.meta.url === pathToFileURL(entry).href;
}

if (isMain()) {
  const fixture = process.env.FIXTURE;
  const server =
    fixture === "tasks" ? createTasksFixture() : createFixtureServer(fixture === "paged" ? { pageSize: 2 } : {});
  serveStdio(server, { maxLineBytes: LIMIT_BYTES });
}
