import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type RequestContext, type Server } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { until } from "../../../scripts/wait.js";
import { createRemote, type RemoteOptions } from "./index.js";

// The remote's questions (elicitation, sampling, roots) through the gateway to the real client whose call caused
// them, and the answers back. Real peers only: the remote is the official SDK v2 (ask-remote.test-util.mjs, on stdio
// or over HTTP) or a Toolsmith server over HTTP, in either era; the gateway is served over HTTP and the real
// clients are the official client, in either era, with handlers for each question.

const ASK_REMOTE = fileURLToPath(new URL("./ask-remote.test-util.mjs", import.meta.url));

type Era = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Era][] = [
  ["handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];
const ALL: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
const FORM = { type: "object", properties: { ok: { type: "boolean" }, who: { type: "string" } }, required: ["ok"] };

const open: { close(): Promise<unknown> }[] = [];
const sdkOnStdio = (): RemoteOptions => ({ command: process.execPath, args: [ASK_REMOTE] });
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

// Calls running in one Toolsmith remote: a tool given `together` asks only once that many run.
function barrier() {
  let running = 0;
  const waiting = new Set<() => void>();
  return (count: number | undefined): Promise<void> => {
    running += 1;
    for (const wake of waiting) wake();
    if (!count || running >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        if (running < count) return;
        waiting.delete(wake);
        resolve();
      };
      waiting.add(wake);
    });
  };
}

function toolsmithRemote(): Server {
  // Its tools fail when a question is refused; that is what these tests expect, not news for the test log.
  const server = createServer({ name: "toolsmith-ask-remote", version: "1.0.0" }).setLogger(() => undefined);
  const together = barrier();
  const asked = new Set<RequestContext>();
  server.tool({
    name: "confirm",
    description: "Asks the user to confirm",
    input: { together: z.number().optional() },
    handler: async ({ together: count }, ctx) => {
      // In 2026-07-28 the handler runs again with the answer: the barrier is for the first run only.
      if (!asked.has(ctx) && ctx.meta?.requestState === undefined) await together(count);
      asked.add(ctx);
      return JSON.stringify(await ctx.elicit({ message: "Go ahead?", requestedSchema: FORM }));
    },
  });
  server.tool({
    name: "visit",
    description: "Sends the user to a page",
    handler: async (_, ctx) =>
      JSON.stringify(await ctx.elicit({ mode: "url", message: "Sign in", url: "https://example.com/sign-in" })),
  });
  server.tool({
    name: "think",
    description: "Asks the client's model",
    handler: async (_, ctx) =>
      JSON.stringify(
        await ctx.sample({
          messages: [{ role: "user", content: { type: "text", text: "What is 2+2?" } }],
          maxTokens: 10,
        }),
      ),
  });
  server.tool({
    name: "flood",
    description: "Asks 150 questions at once",
    handler: async (_, ctx) => {
      const asks = Array.from({ length: 150 }, () => ctx.elicit({ message: "Again?", requestedSchema: FORM }));
      return JSON.stringify(await Promise.all(asks));
    },
  });
  server.prompt({
    name: "greet",
    description: "Greets the user by the name they give",
    handler: async (_, ctx) => {
      const answer = await ctx.elicit({ message: "Your name?", requestedSchema: FORM });
      return `Hello, ${answer.action === "accept" ? String(answer.content.who) : "stranger"}`;
    },
  });
  server.resource({
    uri: "ask://roots",
    name: "roots",
    mimeType: "application/json",
    handler: async (ctx) => JSON.stringify(await ctx.roots()),
  });
  server.tool({
    name: "where",
    description: "Lists the client's roots",
    handler: async (_, ctx) => JSON.stringify({ roots: await ctx.roots() }),
  });
  return server;
}

interface Target {
  readonly name: string;
  readonly eras: readonly Era[];
  /** Whether each question is tied to its call (not a handshake-era one on stdio: there only a sole call is). */
  readonly tied: (era: Era) => boolean;
  options(): Promise<RemoteOptions>;
}

function sdkOverHttp(mode: "--http" | "--http-sessions"): Promise<RemoteOptions> {
  const child = spawn(process.execPath, [ASK_REMOTE, mode], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  open.unshift({
    close: () => {
      child.kill();
      return exited;
    },
  });
  return once(createInterface({ input: child.stdout }), "line").then(([line]) => ({ url: line as string }));
}

const TARGETS: Target[] = [
  {
    name: "official SDK v2 on stdio",
    eras: ["legacy", { pin: "2026-07-28" }],
    tied: (era) => era !== "legacy",
    // Trusted to ask within its calls: a handshake-era question goes to the sole call in flight.
    options: async () => ({ ...sdkOnStdio(), untiedQuestions: "sole-call" }),
  },
  {
    name: "official SDK v2 over HTTP",
    eras: [{ pin: "2026-07-28" }],
    tied: () => true,
    options: () => sdkOverHttp("--http"),
  },
  {
    name: "official SDK v2 over HTTP with sessions",
    eras: ["legacy"],
    tied: () => true,
    options: () => sdkOverHttp("--http-sessions"),
  },
  {
    name: "Toolsmith over HTTP",
    eras: ["legacy", { pin: "2026-07-28" }],
    tied: () => true,
    options: async () => {
      const http = await listen(toolsmithRemote(), { port: 0, log: null });
      open.unshift(http);
      return { url: http.url };
    },
  },
];

async function gatewayFor(options: RemoteOptions): Promise<string> {
  const remote = await createRemote(options);
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  return http.url;
}

interface Asked {
  method: string;
  params: Record<string, unknown>;
}

/** A real client: answers each question as `answer` says, recording what it was asked. */
async function realClient(
  url: string,
  era: Era,
  name: string,
  options: { capabilities?: ClientCapabilities; elicit?: (params: Record<string, unknown>) => unknown } = {},
): Promise<{ client: Client; asked: Asked[] }> {
  const capabilities = options.capabilities ?? ALL;
  const client = new Client({ name, version: "1.0.0" }, { capabilities, versionNegotiation: { mode: era } });
  const asked: Asked[] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push({ method: request.method, params: request.params as Record<string, unknown> });
      const chosen = await options.elicit?.(request.params as Record<string, unknown>);
      if (chosen) return chosen as never;
      return request.params.mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: { ok: true, who: name } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler("sampling/createMessage", async (request) => {
      asked.push({ method: request.method, params: request.params as Record<string, unknown> });
      return { role: "assistant", content: { type: "text", text: `4, says ${name}` }, model: "test-model" };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler("roots/list", async (request) => {
      asked.push({ method: request.method, params: (request.params ?? {}) as Record<string, unknown> });
      return { roots: [{ uri: `file:///home/${name}`, name }] };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.push(client);
  return { client, asked };
}

function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? "";
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return client.callTool({ name, arguments: args });
}

for (const target of TARGETS) {
  for (const remoteEra of target.eras) {
    describe.each(ERAS)(
      `${target.name}, remote in ${JSON.stringify(remoteEra)}, real client in the %s era`,
      (_, era) => {
        it("each question reaches the caller and its answer goes back: form, declined, cancelled, URL, sampling, roots", async () => {
          const url = await gatewayFor({ ...(await target.options()), era: remoteEra });
          let next: unknown;
          const { client, asked } = await realClient(url, era, "alice", { elicit: () => next });

          expect(JSON.parse(textOf(await call(client, "r.confirm")))).toEqual({
            action: "accept",
            content: { ok: true, who: "alice" },
          });
          expect(asked[0]).toMatchObject({
            method: "elicitation/create",
            params: { message: "Go ahead?", requestedSchema: FORM },
          });
          next = { action: "decline" };
          expect(JSON.parse(textOf(await call(client, "r.confirm")))).toEqual({ action: "decline" });
          next = { action: "cancel" };
          expect(JSON.parse(textOf(await call(client, "r.confirm")))).toEqual({ action: "cancel" });
          next = undefined;

          expect(JSON.parse(textOf(await call(client, "r.visit")))).toEqual({ action: "accept" });
          expect(asked.at(-1)).toMatchObject({
            params: { mode: "url", message: "Sign in", url: "https://example.com/sign-in" },
          });
          expect(JSON.parse(textOf(await call(client, "r.think")))).toMatchObject({
            role: "assistant",
            content: { type: "text", text: "4, says alice" },
            model: "test-model",
          });
          expect(asked.at(-1)).toMatchObject({ method: "sampling/createMessage", params: { maxTokens: 10 } });
          expect(JSON.parse(textOf(await call(client, "r.where")))).toEqual({
            roots: [{ uri: "file:///home/alice", name: "alice" }],
          });
        });

        if (era === "legacy") {
          it("a caller without the capability: the remote is answered as that client would (Method not found)", async () => {
            const url = await gatewayFor({ ...(await target.options()), era: remoteEra });
            const { client, asked } = await realClient(url, era, "bare", { capabilities: {} });
            for (const tool of ["r.confirm", "r.think", "r.where"]) {
              const result = await call(client, tool);
              expect(result.isError).toBe(true);
              expect(textOf(result)).toMatch(/Method not found/);
            }
            const formOnly = await realClient(url, era, "form-only", { capabilities: { elicitation: { form: {} } } });
            const visit = await call(formOnly.client, "r.visit");
            expect(visit.isError).toBe(true);
            expect(textOf(visit)).toMatch(/does not support URL-mode elicitation/);
            expect([...asked, ...formOnly.asked]).toEqual([]);
          });
        } else {
          it("a caller without the capability is answered -32021, as one of the gateway's own tools would be", async () => {
            const url = await gatewayFor({ ...(await target.options()), era: remoteEra });
            const { client, asked } = await realClient(url, era, "bare", { capabilities: {} });
            const needs = { "r.confirm": "elicitation", "r.think": "sampling", "r.where": "roots" } as const;
            for (const [tool, capability] of Object.entries(needs)) {
              const refused = await call(client, tool).then(
                () => undefined,
                (error: unknown) => error,
              );
              expect(refused).toMatchObject({ code: -32021 });
              expect((refused as Error).message).toContain(capability);
            }
            const formOnly = await realClient(url, era, "form-only", { capabilities: { elicitation: { form: {} } } });
            await expect(call(formOnly.client, "r.visit")).rejects.toMatchObject({ code: -32021 });
            expect([...asked, ...formOnly.asked]).toEqual([]);
            // The gateway lives on: a caller that has the capability is asked.
            const alice = await realClient(url, era, "alice", { elicit: () => undefined });
            expect((await call(alice.client, "r.confirm")).isError).toBeFalsy();
          });
        }

        if (target.tied(remoteEra)) {
          it("two callers at once: each gets only its own question, and its own answer back", async () => {
            const url = await gatewayFor({ ...(await target.options()), era: remoteEra });
            // Each answers only once both were asked: both calls are at the remote at once.
            let release!: () => void;
            const both = new Promise<void>((resolve) => {
              release = resolve;
            });
            let count = 0;
            const elicit = async () => {
              count += 1;
              if (count === 2) release();
              await both;
              return undefined;
            };
            const alice = await realClient(url, era, "alice", { elicit });
            const bob = await realClient(url, era, "bob", { elicit });
            const [a, b] = await Promise.all([
              call(alice.client, "r.confirm", { together: 2 }),
              call(bob.client, "r.confirm", { together: 2 }),
            ]);
            expect(JSON.parse(textOf(a))).toEqual({ action: "accept", content: { ok: true, who: "alice" } });
            expect(JSON.parse(textOf(b))).toEqual({ action: "accept", content: { ok: true, who: "bob" } });
            expect(alice.asked).toHaveLength(1);
            expect(bob.asked).toHaveLength(1);
          });
        }
      },
    );
  }
}

describe.each(ERAS)("a handshake-era remote on stdio, real client in the %s era", (_, era) => {
  it("by default, a question that cannot say which call it belongs to is refused, and reaches no one", async () => {
    const url = await gatewayFor({ ...sdkOnStdio(), era: "legacy" });
    const { client, asked } = await realClient(url, era, "alice");
    for (const tool of ["r.confirm", "r.where"]) {
      const result = await call(client, tool);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/asked outside any call it serves \(or where it cannot tell which one\)/);
    }
    expect(asked).toEqual([]);
  });

  // As the SDK writes (the questions come in one chunk or two, as it happens), or cut after the first question, so that
  // the second comes in one chunk with the first call's reply: what a busy machine once did, and a gateway that judged
  // the second question after the whole chunk gave it to bob, the one call left.
  const chunkings: [string, string[]][] = [
    ["as the SDK writes", []],
    ["the stream cut after the first question", ["--chunks=cut"]],
  ];
  it.each(chunkings)(
    "sole-call: two calls at once, a question it cannot tie to one of them is refused, never guessed (%s)",
    async (_, flags) => {
      const url = await gatewayFor({
        command: process.execPath,
        args: [ASK_REMOTE, ...flags],
        era: "legacy",
        untiedQuestions: "sole-call",
      });
      const alice = await realClient(url, era, "alice");
      const bob = await realClient(url, era, "bob");
      const [a, b] = await Promise.all([
        call(alice.client, "r.confirm", { together: 2 }),
        call(bob.client, "r.confirm", { together: 2 }),
      ]);
      // The remote asks only once both calls run, and a call's reply waits for its question's answer: both questions
      // are in the stream before either reply, so each is read while two calls are in flight and refused, however the
      // stream is cut into chunks and however slow the machine.
      const seen = JSON.stringify({
        alice: { text: textOf(a), asked: alice.asked },
        bob: { text: textOf(b), asked: bob.asked },
      });
      for (const result of [a, b]) {
        expect(result.isError, seen).toBe(true);
        expect(textOf(result), seen).toMatch(/asked outside any call it serves \(or where it cannot tell which one\)/);
      }
      expect([...alice.asked, ...bob.asked]).toEqual([]);
      // One call alone is tied to its caller.
      expect(JSON.parse(textOf(await call(alice.client, "r.confirm")))).toMatchObject({ action: "accept" });
    },
  );

  it("sole-call: a question read in one chunk with a reply after it is judged where it stands in the stream", async () => {
    // The remote asks for alice's call and ends that call at once, in one write, while bob's call runs: two calls
    // ran when it asked, though after the whole chunk only bob's does.
    const url = await gatewayFor({
      command: process.execPath,
      args: [ASK_REMOTE, "--chunks=turn"],
      era: "legacy",
      untiedQuestions: "sole-call",
    });
    const alice = await realClient(url, era, "alice");
    const bob = await realClient(url, era, "bob");
    const [a, b] = await Promise.all([
      call(alice.client, "r.ask_then_end", { together: 2 }),
      call(bob.client, "r.hold", { together: 2 }),
    ]);
    expect([...alice.asked, ...bob.asked]).toEqual([]);
    expect(textOf(a)).toBe("ended");
    expect(textOf(b)).toMatch(/^refused: .*asked outside any call it serves \(or where it cannot tell which one\)/);
  });
});

describe.each(ERAS)("what a remote may not do, real client in the %s era", (_, era) => {
  // A 2026-07-28 caller gets the questions that came before the forwarded call was cancelled, round by round, until
  // its own bound on rounds (the official client's maxRounds) ends it: only the handshake era counts to 100 here.
  it.runIf(era === "legacy")(
    "a flood of questions: at most 100 per call reach the caller, the rest are refused",
    async () => {
      const http = await listen(toolsmithRemote(), { port: 0, log: null });
      open.unshift(http);
      const url = await gatewayFor({ url: http.url, era: "legacy" });
      const { client, asked } = await realClient(url, era, "alice");
      const result = await call(client, "r.flood");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/More than 100 questions in one call/);
      expect(asked).toHaveLength(100);
    },
  );

  it("a remote killed while its question is with the caller: the call settles, the gateway serves on", async () => {
    const url = await gatewayFor({
      ...sdkOnStdio(),
      era: "legacy",
      untiedQuestions: "sole-call",
      backoff: { initialMs: 0 },
    });
    const pid = Number(textOf(await call((await realClient(url, era, "probe")).client, "r.pid")));
    const { client } = await realClient(url, era, "alice", {
      elicit: () => {
        process.kill(pid, "SIGKILL");
        return undefined;
      },
    });
    const settled = await call(client, "r.confirm").then(
      (result) => result,
      (error: Error) => error,
    );
    expect(settled).toBeDefined();
    await until(async () => {
      const now = await call(client, "r.pid");
      return !now.isError && Number(textOf(now)) !== pid;
    }, "a new remote process");
  });
});

describe.each(ERAS)("a question asked after its call was cancelled, real client in the %s era", (_, era) => {
  const remotes: [string, () => Promise<RemoteOptions>, RegExp][] = [
    [
      "official SDK v2 on stdio, sole-call",
      async () => ({ ...sdkOnStdio(), untiedQuestions: "sole-call" }),
      /^refused: .*asked outside any call it serves/,
    ],
    // Its call's response stream is over: the question comes to the gateway outside any call's stream.
    [
      "official SDK v2 over HTTP with sessions",
      () => sdkOverHttp("--http-sessions"),
      /^refused: .*asked outside any call/,
    ],
  ];
  it.each(remotes)(
    "is refused and reaches no one, even with another call alone in flight (%s)",
    async (_, options, refused) => {
      const url = await gatewayFor({ ...(await options()), era: "legacy" });
      const alice = await realClient(url, era, "alice");
      const bob = await realClient(url, era, "bob");
      // Bob polls what became of the question, each poll a call alone in flight when it may come.
      const outcome = async () => textOf(await call(bob.client, "r.late_outcome"));
      const controller = new AbortController();
      const cancelled = alice.client.callTool({ name: "r.late", arguments: {} }, { signal: controller.signal });
      await until(async () => (await outcome()) === "waiting", "the remote running late");
      controller.abort();
      await expect(cancelled).rejects.toThrow();
      const came = await until(async () => {
        const now = await outcome();
        return now.startsWith("refused") || now.startsWith("answered") ? now : undefined;
      }, "the remote's late question answered");
      expect(came).toMatch(refused);
      expect([...alice.asked, ...bob.asked]).toEqual([]);
    },
  );
});

describe.each(ERAS)("a Toolsmith remote's prompt and resource that ask, real client in the %s era", (_, era) => {
  it.each(ERAS)(
    "a get and a read forwarded to a remote in the %s era: the question reaches the caller",
    async (__, remoteEra) => {
      const http = await listen(toolsmithRemote(), { port: 0, log: null });
      open.unshift(http);
      const url = await gatewayFor({ url: http.url, era: remoteEra });
      const { client, asked } = await realClient(url, era, "alice");
      const got = await client.getPrompt({ name: "r.greet" });
      expect(JSON.stringify(got.messages)).toContain("Hello, alice");
      const read = await client.readResource({ uri: "ask://roots" }, { cacheMode: "bypass" });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual([
        { uri: "file:///home/alice", name: "alice" },
      ]);
      expect(asked.map((question) => question.method)).toEqual(["elicitation/create", "roots/list"]);
    },
  );
});
