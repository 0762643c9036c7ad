import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type ElicitResult } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRemote } from "./index.js";

// A 2026-07-28 remote's question keys, hostile ones included, through the gateway to a 2026-07-28 caller: each
// question gets the answer to itself, whatever keys the remote chose. The remote is a Toolsmith server over HTTP whose
// tools ask under keys the test gives; the caller is the official client.

const ASK_REMOTE = fileURLToPath(new URL("./ask-remote.test-util.mjs", import.meta.url));
const ERA = { pin: "2026-07-28" } as const;
const FORM = { type: "object", properties: { who: { type: "string" } }, required: ["who"] };

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** Asks one form question per key given (in one round), each with its index as the message. */
async function remoteAsking(): Promise<string> {
  const server = createServer({ name: "keys", version: "1.0.0" }).setLogger(() => undefined);
  server.tool({
    name: "ask",
    description: "Asks under the keys given",
    input: { keys: z.array(z.string()) },
    handler: async ({ keys }, ctx) => {
      const asks = keys.map((key, n) => ctx.elicit({ message: `q${n}`, requestedSchema: FORM, key }));
      const answers = (await Promise.all(asks)) as ElicitResult<Record<string, unknown>>[];
      return JSON.stringify(answers.map((answer) => answer.content?.who));
    },
  });
  const http = await listen(server, { port: 0, log: null });
  open.unshift(http);
  return http.url;
}

async function caller(url: string): Promise<{ client: Client; keys: unknown[] }> {
  const remote = await createRemote({ url, era: ERA });
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" }).setLogger(() => undefined);
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const client = new Client(
    { name: "caller", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: ERA } },
  );
  const keys: unknown[] = [];
  // Each question is answered with its own message: an answer that reached another question shows.
  client.setRequestHandler("elicitation/create", async (request, context) => {
    keys.push(context.mcpReq.id);
    return { action: "accept", content: { who: request.params.message } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  open.push(client);
  return { client, keys };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe("a 2026-07-28 remote's question keys, through the gateway to a 2026-07-28 caller", () => {
  it("a key the gateway cannot keep never takes the key another question has", async () => {
    const { client, keys } = await caller(await remoteAsking());
    // The long key falls back to a key of the gateway's making, which must not be the next question's own.
    const result = await client.callTool({ name: "r.ask", arguments: { keys: ["x".repeat(200), "elicit-1"] } });
    expect(JSON.parse(textOf(result))).toEqual(["q0", "q1"]);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("hostile keys (__proto__, constructor, empty, one like the gateway's own) each get their own answer", async () => {
    const { client, keys } = await caller(await remoteAsking());
    const asked = ["__proto__", "constructor", "", "elicit-1", "toString", "elicit-1~2"];
    const result = await client.callTool({ name: "r.ask", arguments: { keys: asked } });
    expect(JSON.parse(textOf(result))).toEqual(["q0", "q1", "q2", "q3", "q4", "q5"]);
    expect(new Set(keys).size).toBe(asked.length);
    expect(keys).toContain("__proto__");
  });

  it("a key the remote asks under again in a later round is the caller's `key~2`, and each round gets its answer", async () => {
    const child = spawn(process.execPath, [ASK_REMOTE, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(child, "exit");
    open.unshift({
      close: () => {
        child.kill();
        return exited;
      },
    });
    const [url] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const { client, keys } = await caller(url);
    const result = await client.callTool({ name: "r.twice", arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual([
      { action: "accept", content: { who: "first" } },
      { action: "accept", content: { who: "second" } },
    ]);
    expect(keys).toEqual(["q", "q~2"]);
  });
});
