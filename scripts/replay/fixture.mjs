// The server the replay talks to, built from one checkout's published packages:
//   node fixture.mjs <checkout> stdio
//   node fixture.mjs <checkout> http [redis-url]     (says "listening on <url>" on stderr)
// One small item per feature: results, validation and thrown errors, progress, logs, cancellation, asking the client,
// list changes, subscriptions, guards, tasks, templates, completions, pages (pageSize 6). Nothing depends on time.
import { setTimeout as delay } from "node:timers/promises";
import { dependencyUrl, load } from "./entries.mjs";

const [checkout, transport, redisUrl] = process.argv.slice(2);
if (!checkout || (transport !== "stdio" && transport !== "http")) {
  process.stderr.write("usage: node fixture.mjs <checkout> stdio|http [redis-url]\n");
  process.exit(2);
}

const core = await load(checkout, "@toolsmith/core");
const { z } = await import(dependencyUrl(checkout, "@toolsmith/core", "zod"));
const { createServer, McpError, text, image, resourceLink } = core;

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
const ITEMS = new Map([
  ["1", "Item one"],
  ["2", "Item two"],
  ["10", "Item ten"],
]);
// What the server logs goes to stderr, never to the wire (recorded by nobody).
const logger = (entry) => process.stderr.write(`[${entry.level}] ${entry.message}\n`);

const engine = redisUrl
  ? (await load(checkout, "@toolsmith/redis")).createRedisEngine({ url: redisUrl, namespace: "replay" })
  : undefined;
const server = createServer({
  name: "replay-fixture",
  version: "1.0.0",
  instructions: "A server for wire replays.",
  pageSize: 6,
  stateKey: "replay-fixture-state-key-0123456789",
  logger,
  ...(engine ? { engine } : {}),
});

// ── Tools: results and errors ──
server.tool({
  name: "echo",
  description: "Return the text",
  input: { text: z.string().max(20) },
  handler: (a) => a.text,
});
server.tool({
  name: "add",
  description: "Add two numbers, as structured output",
  input: { a: z.number(), b: z.number().int() },
  output: z.object({ sum: z.number() }),
  handler: ({ a, b }) => ({ sum: a + b, dropped: true }),
});
server.tool({
  name: "content",
  description: "Return content blocks",
  handler: () => [text("plain"), image(PNG, "image/png"), resourceLink({ uri: "fixture://readme", name: "readme" })],
});
server.tool({
  name: "fail",
  description: "Throw an error, or an McpError",
  input: { mcp: z.boolean().default(false) },
  handler: ({ mcp }) => {
    if (mcp) throw new McpError(-32001, "a protocol error on purpose", { why: "asked" });
    throw new Error("the fixture failed on purpose");
  },
});
server.tool({
  name: "bad_output",
  description: "Return what its output schema refuses",
  output: z.object({ n: z.number() }),
  handler: () => ({ n: "not a number" }),
});
server.tool({ name: "big", description: "Return a BigInt", handler: () => ({ big: 1n }) });

// ── Tools: while a call runs ──
server.tool({
  name: "count",
  description: "Report progress from 1 to `to`",
  input: { to: z.number().int().min(1).max(5) },
  handler: async ({ to }, ctx) => {
    for (let step = 1; step <= to; step++) {
      ctx.progress(step, to, `step ${step}`);
      await delay(0);
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
  description: "Say it started, then wait until cancelled",
  handler: async (_args, ctx) => {
    ctx.progress(1, 2, "started");
    await delay(10 * 60_000, undefined, { signal: ctx.signal });
    return "finished";
  },
});

// ── Tools: asking the client ──
server.tool({
  name: "ask_name",
  description: "Ask the user their name",
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
  },
});
server.tool({
  name: "summarize",
  description: "Have the client's model summarize the text",
  input: { text: z.string() },
  handler: async ({ text: said }, ctx) => {
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: said } }],
      maxTokens: 9,
    });
    const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return `${answer.model}: ${block?.text}`;
  },
});
server.tool({
  name: "list_roots",
  description: "Name the client's roots",
  handler: async (_args, ctx) => ({ roots: (await ctx.roots()).map((root) => root.uri) }),
});

// ── Tools: changes, guards, headers ──
const hidden = server.tool({ name: "extra", description: "Listed only while toggled on", handler: () => "extra" });
hidden.disable();
server.tool({
  name: "toggle",
  description: "Enable or disable the extra tool",
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
  name: "admin_only",
  description: "Seen by the admin alone",
  guard: (ctx) => ctx.auth?.subject === "admin",
  handler: (_args, ctx) => `hello ${ctx.auth?.subject}`,
});
server.tool({
  name: "region",
  description: "Return the region, mirrored in a header (2026-07-28 over HTTP)",
  input: { region: z.string().meta({ "x-mcp-header": "Region" }) },
  handler: ({ region }) => region,
});

// ── Tools: tasks (2026-07-28) ──
// `job` waits for `release` (one job at a time), so a poll sees it working; `forever` works until cancelled.
let gate;
const gateOpen = () => {
  if (!gate) {
    let resolve;
    const promise = new Promise((done) => {
      resolve = done;
    });
    gate = { promise, resolve };
  }
  return gate;
};
const aborted = (signal) =>
  new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
server.tool({
  name: "job",
  description: "A task that waits for `release`, reports progress, then asks",
  task: "optional",
  handler: async (_args, ctx) => {
    await Promise.race([gateOpen().promise, aborted(ctx.signal)]);
    gate = undefined;
    ctx.progress(1, 2, "half way");
    const answer = await ctx.elicit({ message: "Go on?", schema: { go: z.boolean() } });
    return answer.action === "accept" && answer.content.go ? "finished" : "stopped";
  },
});
server.tool({
  name: "release",
  description: "Let the waiting job go on",
  handler: () => {
    gateOpen().resolve();
    return "released";
  },
});
server.tool({
  name: "forever",
  description: "A task until cancelled",
  task: "optional",
  handler: (_a, ctx) => aborted(ctx.signal),
});
server.tool({ name: "quick", description: "A task done at once", task: "optional", handler: () => "quick" });
server.tool({ name: "must", description: "Only as a task", task: "required", handler: () => "as a task" });

// ── Resources ──
server.resource({ uri: "fixture://readme", name: "readme", mimeType: "text/plain", handler: () => "Read me first." });
server.resource({ uri: "fixture://logo", name: "logo", mimeType: "image/png", handler: () => ({ blob: PNG }) });
server.resource({ uri: "fixture://watched", name: "watched", mimeType: "text/plain", handler: () => "watched" });
server.resource({
  uri: "fixture://secret",
  name: "secret",
  guard: (ctx) => ctx.auth?.subject === "admin",
  handler: () => "for the admin",
});
server.resource({
  uriTemplate: "fixture://items/{id}",
  name: "item",
  mimeType: "text/plain",
  handler: ({ id }) => ITEMS.get(id),
  complete: { id: (value) => [...ITEMS.keys()].filter((id) => id.startsWith(value)) },
  list: () => [...ITEMS.keys()].map((id) => ({ uri: `fixture://items/${id}`, name: `item ${id}` })),
});
server.resource({
  uriTemplate: "fixture://numbers/{n}",
  name: "number",
  input: { n: z.coerce.number().int() },
  handler: ({ n }) => `twice ${n} is ${2 * n}`,
});

// ── Prompts ──
server.prompt({
  name: "greet",
  description: "Greet someone in a style",
  args: { name: z.string(), style: z.string().optional() },
  complete: {
    style: (value) => ["formal", "friendly", "funny"].filter((style) => style.startsWith(value)),
    name: (value, { arguments: filled }) =>
      (filled.style === "formal" ? ["Dr. Ada", "Dr. Ben"] : ["Ada", "Ben"]).filter((n) => n.includes(value)),
  },
  handler: ({ name, style }) => `Say a ${style ?? "plain"} hello to ${name}.`,
});
server.prompt({ name: "simple", description: "A prompt without arguments", handler: () => "Just say hi." });

if (transport === "stdio") {
  const { serveStdio } = await load(checkout, "@toolsmith/transport-stdio");
  serveStdio(server, { maxLineBytes: 16 * 1024 });
} else {
  const { listen, AuthError } = await load(checkout, "@toolsmith/transport-http");
  // "Bearer <subject>" names the caller; none is "anonymous"; "Bearer nobody" is 401, "Bearer forbidden" 403.
  const authenticate = (request) => {
    const header = request.headers.get("authorization");
    if (header === null) return { subject: "anonymous", scopes: [] };
    const subject = header.replace(/^Bearer /, "");
    if (subject === "nobody") return undefined;
    if (subject === "forbidden") throw new AuthError(403, "not for you");
    return { subject, scopes: [] };
  };
  await listen(server, { port: 0, maxBodyBytes: 16 * 1024, authenticate, allowedOrigins: ["https://app.example"] });
}
