import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { createServer } from "../index.js";
import { createTestClient } from "./client.js";

// The test client's edges: a handler that answers nothing, many questions in one call, closing with calls pending,
// one of many calls aborted, and streams and completions that take a signal. The same outcome in both eras.

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

function tracker() {
  const server = createServer({ name: "issues", version: "1", logger: () => {} });
  const started: { ctx: RequestContext; aborted: Promise<unknown> }[] = [];
  let someoneStarted = deferred();
  server.tool({
    name: "create",
    description: "Create an issue, asking for its title",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Title?", schema: { title: z.string() } });
      return answer.action === "accept" ? `created "${answer.content.title}"` : answer.action;
    },
  });
  server.tool({
    name: "wizard",
    description: "Ask twenty questions, one after another",
    handler: async (_args, ctx) => {
      const answers: string[] = [];
      for (let step = 1; step <= 20; step++) {
        const answer = await ctx.elicit({ message: `Step ${step}?`, schema: { value: z.string() } });
        if (answer.action === "accept") answers.push(answer.content.value);
      }
      return answers.join(",");
    },
  });
  server.tool({
    name: "wait",
    description: "Wait until cancelled",
    handler: async (_args, ctx) => {
      const aborted = new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason)));
      started.push({ ctx, aborted });
      someoneStarted.resolve();
      await aborted;
      return "stopped";
    },
  });
  server.tool({ name: "stuck", description: "Never answers", handler: () => new Promise(() => {}) });
  server.tool({ name: "quick", description: "Answers at once", handler: () => "quick" });
  server.prompt({
    name: "triage",
    args: { label: z.string() },
    complete: {
      label: (_value, { ctx }) =>
        new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(["aborted"]))),
    },
    handler: ({ label }) => label,
  });
  const nextStart = () => {
    const waited = someoneStarted.promise;
    someoneStarted = deferred();
    return waited;
  };
  return { server, started, nextStart };
}

describe.each(["2025-11-25", "2026-07-28"] as const)("the test client in %s", (protocolVersion) => {
  it("a handler that returns nothing rejects the call with what to return (no wait for a reply, no retry)", async () => {
    const client = await createTestClient(tracker().server, { protocolVersion, elicit: (() => {}) as never });
    await expect(client.callTool("create")).rejects.toThrow(
      `the test client's elicitation/create handler returned undefined, not a result: return the object the client answers ({ action: "accept", content: { … } }, or { action: "decline" })`,
    );
  });

  it("a call may ask many questions one after another, as in the other era", async () => {
    let asked = 0;
    const client = await createTestClient(tracker().server, {
      protocolVersion,
      elicit: () => ({ action: "accept", content: { value: String(++asked) } }),
    });
    const result = await client.callTool("wizard");
    expect(result.content).toEqual([{ type: "text", text: Array.from({ length: 20 }, (_, i) => i + 1).join(",") }]);
  });

  it("close() rejects every call still waiting and every later one, and stops what runs on the server", async () => {
    const { server, started, nextStart } = tracker();
    const answering = deferred<AbortSignal>();
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: (_params, { signal }) => {
        answering.resolve(signal);
        return new Promise(() => {});
      },
    });
    const stuck = client.callTool("stuck");
    const waiting = client.callTool("wait");
    await nextStart();
    const asking = client.callTool("create");
    const handlerSignal = await answering.promise;
    client.close();
    for (const call of [stuck, waiting, asking]) await expect(call).rejects.toThrow("the test client was closed");
    expect(await started[0]?.aborted).toBeDefined();
    expect(handlerSignal.aborted).toBe(true);
    await expect(client.callTool("quick")).rejects.toThrow("the test client was closed");
  });

  it("of many calls in flight, aborting one stops only that one; aborting after the reply does nothing", async () => {
    const { server, started, nextStart } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const controllers = [0, 1, 2].map(() => new AbortController());
    const calls: Promise<unknown>[] = [];
    for (const controller of controllers) {
      calls.push(client.callTool("wait", undefined, { signal: controller.signal }));
      await nextStart();
    }
    controllers[1]?.abort();
    await expect(calls[1]).rejects.toMatchObject({ name: "AbortError" });
    expect(started.map(({ ctx }) => ctx.signal.aborted)).toEqual([false, true, false]);
    const done = new AbortController();
    expect((await client.callTool("quick", undefined, { signal: done.signal })).content).toEqual([
      { type: "text", text: "quick" },
    ]);
    const before = client.messages.length;
    done.abort();
    expect(client.messages.length).toBe(before);
    client.close();
    await Promise.allSettled(calls);
  });

  it("complete takes a signal too", async () => {
    const client = await createTestClient(tracker().server, { protocolVersion });
    const controller = new AbortController();
    const ref = { type: "ref/prompt", name: "triage" } as const;
    const completion = client.complete(ref, { name: "label", value: "" }, undefined, { signal: controller.signal });
    controller.abort("typed on");
    await expect(completion).rejects.toBe("typed on");
  });
});

describe("a 2026-07-28 listen stream", () => {
  it("aborting its signal closes it: the server is told, next() rejects with the reason", async () => {
    const { server } = tracker();
    const client = await createTestClient(server);
    const controller = new AbortController();
    const stream = await client.listen({ toolsListChanged: true }, { signal: controller.signal });
    const next = stream.next();
    controller.abort("the panel closed");
    await expect(next).rejects.toBe("the panel closed");
    await expect(stream.next()).rejects.toBe("the panel closed");
    const cancelled = client.messages.filter((record) => record.line.includes("notifications/cancelled"));
    expect(
      cancelled.map((record) => (record.message as { params?: { requestId?: unknown } }).params?.requestId),
    ).toEqual([stream.id]);
    await expect(client.listen({}, { signal: controller.signal })).rejects.toBe("the panel closed");
  });

  it("close() of the client ends it; a stream the test closed rejects next()", async () => {
    const client = await createTestClient(tracker().server);
    const stream = await client.listen({ toolsListChanged: true });
    const closedByTest = await client.listen({ promptsListChanged: true });
    await closedByTest.close();
    await expect(closedByTest.next()).rejects.toThrow("was closed");
    const next = stream.next();
    client.close();
    await expect(next).rejects.toThrow("the test client was closed");
  });
});
