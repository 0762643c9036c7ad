import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import {
  createMcpHandler,
  inputRequired,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

// The remote in ask.test.ts: a server of the official SDK v2 whose tools ask the client, written the 2026-07-28 way
// (`inputRequired`), which the SDK serves in the handshake era too (its legacy shim sends each embedded question as
// a server→client request on the call's behalf). On its stdio, or over Streamable HTTP on a free port it prints:
// `--http` (`createMcpHandler`, the 2025 era stateless there: no question can be answered in it) or
// `--http-sessions` (the handshake era with sessions).

const FORM = {
  type: "object",
  properties: { ok: { type: "boolean" }, who: { type: "string" } },
  required: ["ok"],
};

const WHO = { type: "object", properties: { who: { type: "string" } }, required: ["who"] };

// Calls in flight in this process: a tool given `together` asks only once that many run (two callers at once).
let running = 0;
const waiting = new Set();
function together(count) {
  running += 1;
  for (const wake of waiting) wake();
  if (running >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      if (running < count) return;
      waiting.delete(wake);
      resolve();
    };
    waiting.add(wake);
  });
}

// What a question asked after its call was cancelled came to (handshake era), for the tool `late_outcome`.
let late = "not asked";

// What the question of `ask_then_end` came to (handshake era), for `hold`, the call kept in flight until it settles.
let settle;
const whose = new Promise((resolve) => {
  settle = resolve;
});

function text(value) {
  return { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }] };
}

function answered(ctx, key) {
  return ctx.mcpReq.inputResponses?.[key];
}

function factory() {
  const server = new McpServer({ name: "ask-remote", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "twice",
    { description: "Asks under one key in two rounds (2026-07-28)", inputSchema: z.object({}) },
    async (_, ctx) => {
      const answer = answered(ctx, "q");
      const state = ctx.mcpReq.requestState();
      if (state === undefined && answer === undefined) {
        return inputRequired({
          inputRequests: { q: inputRequired.elicit({ message: "first", requestedSchema: WHO }) },
        });
      }
      if (state === undefined) {
        return inputRequired({
          inputRequests: { q: inputRequired.elicit({ message: "second", requestedSchema: WHO }) },
          requestState: `second:${JSON.stringify(answer)}`,
        });
      }
      return text([JSON.parse(state.slice("second:".length)), answer]);
    },
  );
  server.registerTool(
    "confirm",
    { description: "Asks the user to confirm", inputSchema: z.object({ together: z.number().optional() }) },
    async (args, ctx) => {
      const answer = answered(ctx, "confirm");
      if (answer === undefined) {
        if (args.together) await together(args.together);
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: "Go ahead?", requestedSchema: FORM }) },
        });
      }
      return text(answer);
    },
  );
  server.registerTool(
    "visit",
    { description: "Sends the user to a page", inputSchema: z.object({}) },
    async (_, ctx) => {
      const answer = answered(ctx, "visit");
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            visit: inputRequired.elicitUrl({
              message: "Sign in",
              url: "https://example.com/sign-in",
              elicitationId: "e-1",
            }),
          },
        });
      }
      return text(answer);
    },
  );
  server.registerTool(
    "think",
    { description: "Asks the client's model", inputSchema: z.object({}) },
    async (_, ctx) => {
      const answer = answered(ctx, "think");
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            think: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "What is 2+2?" } }],
              maxTokens: 10,
            }),
          },
        });
      }
      return text(answer);
    },
  );
  server.registerTool(
    "where",
    { description: "Lists the client's roots", inputSchema: z.object({}) },
    async (_, ctx) => {
      const answer = answered(ctx, "where");
      if (answer === undefined) return inputRequired({ inputRequests: { where: inputRequired.listRoots() } });
      return text(answer);
    },
  );
  // Handshake era: waits for its cancellation, then asks anyway; what that came to is kept for `late_outcome`.
  server.registerTool(
    "late",
    { description: "Asks after it was cancelled", inputSchema: z.object({}) },
    async (_, ctx) => {
      late = "waiting";
      await new Promise((resolve) => ctx.mcpReq.signal.addEventListener("abort", resolve, { once: true }));
      late = "asking";
      try {
        late = `answered ${JSON.stringify(await ctx.mcpReq.elicitInput({ message: "Still there?", requestedSchema: FORM }))}`;
      } catch (error) {
        late = `refused: ${error.message}`;
      }
      return text("late");
    },
  );
  // Handshake era: asks once `together` calls run and ends its call without waiting for the answer, so the
  // question and this call's reply leave in one turn (with `--chunks=turn`, in one write, the question first).
  server.registerTool(
    "ask_then_end",
    { description: "Asks and ends at once", inputSchema: z.object({ together: z.number() }) },
    async (args, ctx) => {
      await together(args.together);
      ctx.mcpReq.elicitInput({ message: "Whose question is this?", requestedSchema: FORM }).then(
        (answer) => settle(`answered ${JSON.stringify(answer)}`),
        (error) => settle(`refused: ${error.message}`),
      );
      return text("ended");
    },
  );
  // Stays in flight, once `together` calls run, until the question of `ask_then_end` settles; says what it came to.
  server.registerTool(
    "hold",
    { description: "Waits for ask_then_end's question", inputSchema: z.object({ together: z.number() }) },
    async (args) => {
      await together(args.together);
      return text(await whose);
    },
  );
  server.registerTool("pid", { description: "This process's id", inputSchema: z.object({}) }, async () =>
    text(String(process.pid)),
  );
  server.registerTool("late_outcome", { description: "What late came to", inputSchema: z.object({}) }, async () =>
    text(late),
  );
  return server;
}

// The handshake era with sessions (`--http-sessions`): one server and transport per session, so a question's
// answer, posted apart, finds the server that asked it.
function sessions() {
  const open = new Map();
  return async (request) => {
    const id = request.headers.get("mcp-session-id");
    const known = id === null ? undefined : open.get(id);
    if (known) return known.handleRequest(request);
    if (id !== null) return new Response("unknown session", { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        open.set(sessionId, transport);
      },
      onsessionclosed: (sessionId) => {
        open.delete(sessionId);
      },
    });
    await factory().connect(transport);
    return transport.handleRequest(request);
  };
}

// node:http → Request → `handle` → node:http, the body read whole; SSE replies streamed as they come.
function serveHttp(handle) {
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const response = await handle(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return res.end();
      try {
        for await (const chunk of response.body) res.write(chunk);
      } catch {
        // The client went away mid-stream.
      }
      res.end();
    });
  });
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}

// How what the SDK writes on stdio is cut into chunks for the client, `--chunks=turn`: what one turn of the event
// loop writes goes out in one write (a buffered writer); `--chunks=cut`: the first message of a turn goes out at
// once and the rest of that turn with the next write (a writer that stalled after its first message).
const chunks = process.argv.find((arg) => arg.startsWith("--chunks="))?.slice("--chunks=".length);
if (chunks === "turn" || chunks === "cut") {
  const write = process.stdout.write.bind(process.stdout);
  let held = "";
  let wrote = false;
  process.stdout.write = (chunk) => {
    if (chunks === "turn") {
      if (held === "") {
        setImmediate(() => {
          const out = held;
          held = "";
          write(out);
        });
      }
      held += String(chunk);
      return true;
    }
    if (wrote) {
      held += String(chunk);
      return true;
    }
    wrote = true;
    setImmediate(() => {
      wrote = false;
    });
    const out = held + String(chunk);
    held = "";
    return write(out);
  };
}

if (process.argv.includes("--http")) {
  const handler = createMcpHandler(factory, { legacy: "stateless" });
  serveHttp((request) => handler.fetch(request));
} else if (process.argv.includes("--http-sessions")) serveHttp(sessions());
else serveStdio(factory);
