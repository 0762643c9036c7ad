import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, McpError, MetaKey, type Server } from "../index.js";
import { andThen, attempt, isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { connectLines, receiveLine, replyTo } from "./connection.test-util.js";

// A PromiseLike that is not a Promise (the type says Promise; the runtime takes any thenable).
function thenable<T>(value: T): Promise<T> {
  // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this tests.
  const like: PromiseLike<T> = { then: (onFulfilled) => Promise.resolve(value).then(onFulfilled) };
  return like as Promise<T>;
}

describe("andThen", () => {
  it("a plain value: next runs now and its result comes back as is, no promise", () => {
    const order: string[] = [];
    const result = andThen(20, (value) => {
      order.push("next");
      return value + 1;
    });
    order.push("returned");
    expect(result).toBe(21);
    expect(isPromiseLike(result)).toBe(false);
    expect(order).toEqual(["next", "returned"]);
  });

  it("falsy values are values, not pending: undefined, null, 0, empty string", () => {
    for (const value of [undefined, null, 0, ""]) {
      const seen: unknown[] = [];
      const result = andThen<unknown, string>(value, (v) => {
        seen.push(v);
        return "done";
      });
      expect(result).toBe("done");
      expect(seen).toEqual([value]);
    }
  });

  it("a promise: next waits for it and a promise comes back", async () => {
    let calls = 0;
    const result = andThen(Promise.resolve(2), (value) => {
      calls++;
      return value * 10;
    });
    expect(result).toBeInstanceOf(Promise);
    expect(calls).toBe(0);
    expect(await result).toBe(20);
    expect(calls).toBe(1);
  });

  it("a thenable that is not a Promise counts as pending", async () => {
    const result = andThen(thenable("x"), (value) => `${value}!`);
    expect(isPromiseLike(result)).toBe(true);
    expect(await result).toBe("x!");
  });

  it("next may return a promise from a plain value: that promise comes back", async () => {
    const later = Promise.resolve("later");
    const result = andThen(1, () => later);
    expect(result).toBe(later);
    expect(await result).toBe("later");
  });

  it("a synchronous throw from next reaches the caller synchronously", () => {
    const boom = new Error("boom");
    expect(() =>
      andThen(1, () => {
        throw boom;
      }),
    ).toThrow(boom);
  });

  it("a rejection skips next and rejects the result", async () => {
    let calls = 0;
    const boom = new Error("rejected");
    const result = andThen(Promise.reject(boom), () => {
      calls++;
      return "never";
    });
    await expect(result).rejects.toBe(boom);
    expect(calls).toBe(0);
  });

  it("a throw from next after a promise rejects the result", async () => {
    const boom = new Error("late boom");
    const result = andThen(Promise.resolve(1), () => {
      throw boom;
    });
    await expect(result).rejects.toBe(boom);
  });
});

describe("attempt", () => {
  it("a synchronous body's value comes back as is, recover not called", () => {
    let recovered = 0;
    const result = attempt(
      () => "fine",
      () => {
        recovered++;
        return "recovered";
      },
    );
    expect(result).toBe("fine");
    expect(isPromiseLike(result)).toBe(false);
    expect(recovered).toBe(0);
  });

  it("a synchronous throw goes to recover, whose value comes back synchronously", () => {
    const boom = new Error("sync throw");
    const seen: unknown[] = [];
    const result = attempt<string>(
      () => {
        throw boom;
      },
      (error) => {
        seen.push(error);
        return "recovered";
      },
    );
    expect(result).toBe("recovered");
    expect(isPromiseLike(result)).toBe(false);
    expect(seen).toEqual([boom]);
  });

  it("a rejection goes to recover with its reason; the result is a promise of recover's value", async () => {
    const boom = new Error("async reject");
    const seen: unknown[] = [];
    const result = attempt<string>(
      () => Promise.reject(boom),
      (error) => {
        seen.push(error);
        return "recovered";
      },
    );
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe("recovered");
    expect(seen).toEqual([boom]);
  });

  it("a promise that fulfils comes back fulfilled, recover not called", async () => {
    let recovered = 0;
    const result = attempt(
      () => Promise.resolve(5),
      () => {
        recovered++;
        return 0;
      },
    );
    expect(isPromiseLike(result)).toBe(true);
    expect(await result).toBe(5);
    expect(recovered).toBe(0);
  });

  it("recover may rethrow: synchronously for a sync throw, as a rejection for a rejected promise", async () => {
    const first = new Error("first");
    const second = new Error("second");
    expect(() =>
      attempt(
        () => {
          throw first;
        },
        () => {
          throw second;
        },
      ),
    ).toThrow(second);
    await expect(
      attempt(
        () => Promise.reject(first),
        () => {
          throw second;
        },
      ),
    ).rejects.toBe(second);
  });

  it("recover may answer with a promise", async () => {
    const result = attempt<string>(
      () => {
        throw new Error("x");
      },
      () => Promise.resolve("later"),
    );
    expect(await result).toBe("later");
  });

  it("composes with andThen: a throw inside a synchronous chain is recovered synchronously", () => {
    const result = attempt(
      () =>
        andThen(1, (value) => {
          if (value === 1) throw new Error("one");
          return "no";
        }),
      (error) => `recovered: ${(error as Error).message}`,
    );
    expect(result).toBe("recovered: one");
  });

  it("a rejected thenable goes to recover", async () => {
    const like: PromiseLike<string> = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this tests.
      then: (_onFulfilled, onRejected) => Promise.reject(new Error("nope")).then(undefined, onRejected),
    };
    const rejecting = like as Promise<string>;
    expect(
      await attempt(
        () => rejecting,
        (error) => `got ${(error as Error).message}`,
      ),
    ).toBe("got nope");
  });
});

// The same server twice: handlers answer synchronously in one and through a promise in the other.
type Mode = "sync" | "async";

function later<T>(mode: Mode, value: T): MaybePromise<T> {
  return mode === "sync" ? value : Promise.resolve(value);
}

function failing(mode: Mode, error: Error): MaybePromise<never> {
  if (mode === "sync") throw error;
  return Promise.reject(error);
}

function build(mode: Mode): { server: Server; reports: unknown[] } {
  const reports: unknown[] = [];
  const server = createServer({
    name: "maybe-test",
    version: "1.0.0",
    onError: (error) => reports.push((error as Error).message),
  });
  server.tool({
    name: "echo",
    description: "Echo",
    input: { text: z.string() },
    handler: ({ text }) => later(mode, `echo: ${text}`),
  });
  server.tool({
    name: "sum",
    description: "Sum",
    input: { a: z.number(), b: z.number() },
    output: z.object({ sum: z.number() }),
    handler: ({ a, b }) => later(mode, { sum: a + b }),
  });
  server.tool({ name: "boom", description: "Fails", handler: () => failing(mode, new Error("kaput")) });
  server.tool({
    name: "denied",
    description: "Refuses with a JSON-RPC error",
    handler: () => failing(mode, new McpError(-32602, "no such thing", { why: "test" })),
  });
  server.resource({ uri: "docs://a", mimeType: "text/plain", handler: () => later(mode, "A") });
  server.resource({ uri: "docs://gone", handler: () => later(mode, undefined) });
  server.resource({
    uriTemplate: "n://{id}",
    input: { id: z.coerce.number() },
    handler: (variables) => later(mode, `note ${variables.id}`),
    list: () => later(mode, [{ uri: "n://1", name: "one" }]),
  });
  server.prompt({ name: "greet", args: { person: z.string() }, handler: ({ person }) => later(mode, `Hi ${person}`) });
  return { server, reports };
}

interface Step {
  line: string;
  /** True when the line reaches a handler, so the async server must answer with a promise. */
  handler: boolean;
}

function line(message: unknown): string {
  return JSON.stringify(message);
}

function operations(meta: Record<string, unknown> | undefined): Step[] {
  const params = (fields: Record<string, unknown>) => (meta ? { ...fields, _meta: meta } : fields);
  let id = 100;
  const call = (method: string, fields: Record<string, unknown>, handler: boolean): Step => ({
    line: line({ jsonrpc: "2.0", id: id++, method, params: params(fields) }),
    handler,
  });
  return [
    call("tools/call", { name: "echo", arguments: { text: "hi" } }, true),
    call("tools/call", { name: "sum", arguments: { a: 2, b: 3 } }, true),
    call("tools/call", { name: "boom" }, true),
    call("tools/call", { name: "denied" }, true),
    call("tools/call", { name: "echo", arguments: { text: 1 } }, false),
    call("tools/call", { name: "missing" }, false),
    call("resources/read", { uri: "docs://a" }, true),
    call("resources/read", { uri: "docs://gone" }, true),
    call("resources/read", { uri: "n://7" }, true),
    call("resources/read", { uri: "n://seven" }, false),
    call("resources/list", {}, true),
    call("prompts/get", { name: "greet", arguments: { person: "Ada" } }, true),
    call("tools/list", {}, false),
  ];
}

const CLIENT = { name: "maybe-client", version: "0.0.1" };
const HANDSHAKE_STEPS: Step[] = [
  {
    line: line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT },
    }),
    handler: false,
  },
  { line: line({ jsonrpc: "2.0", method: "notifications/initialized" }), handler: false },
  { line: line({ jsonrpc: "2.0", id: 2, method: "ping" }), handler: false },
  ...operations(undefined),
  { line: "{not json", handler: false },
];
const STATELESS_META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT,
};
const STATELESS_STEPS: Step[] = [
  {
    line: line({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: STATELESS_META } }),
    handler: false,
  },
  ...operations(STATELESS_META),
];

describe("connection.receive: synchronous handlers answer without a promise", () => {
  for (const [era, steps] of [
    ["handshake", HANDSHAKE_STEPS],
    ["stateless", STATELESS_STEPS],
  ] as const) {
    it(`${era}: the synchronous server never makes a promise; each reply is sent before receive returns`, () => {
      const connection = connectLines(build("sync").server);
      for (const step of steps) {
        const { returned, replies } = receiveLine(connection, step.line);
        expect(returned, step.line).toBeUndefined();
        if (step.line.includes('"id"') || step.line === "{not json") {
          expect(replies, step.line).toHaveLength(1);
          expect(typeof replies[0], step.line).toBe("string");
        } else expect(replies, step.line).toEqual([]);
      }
    });

    it(`${era}: a line that reaches an async handler makes a promise, settled once its reply is sent`, async () => {
      const connection = connectLines(build("async").server);
      for (const step of steps) {
        const { returned, replies, reply } = receiveLine(connection, step.line);
        if (step.handler) {
          expect(returned, step.line).toBeInstanceOf(Promise);
          expect(replies, step.line).toEqual([]);
        }
        const settled = await reply;
        if (step.handler) expect(typeof settled, step.line).toBe("string");
      }
    });

    it(`${era}: the replies are identical either way`, async () => {
      const sync = build("sync");
      const async = build("async");
      const syncConnection = connectLines(sync.server);
      const asyncConnection = connectLines(async.server);
      const syncReplies: (string | undefined)[] = [];
      const asyncReplies: (string | undefined)[] = [];
      for (const step of steps) {
        const { returned, replies } = receiveLine(syncConnection, step.line);
        expect(returned, step.line).toBeUndefined();
        syncReplies.push(replies[0]);
        asyncReplies.push(await replyTo(asyncConnection, step.line));
      }
      expect(asyncReplies).toEqual(syncReplies);
      expect(async.reports).toEqual(sync.reports);
      expect(sync.reports).toEqual(["kaput"]);
      // The sequence really exercised results, tool errors and JSON-RPC errors.
      const parsed = syncReplies.filter((reply) => reply !== undefined).map((reply) => JSON.parse(reply as string));
      expect(parsed.some((reply) => reply.result?.isError === true)).toBe(true);
      expect(parsed.some((reply) => reply.error?.code === -32602 && reply.error?.data?.why === "test")).toBe(true);
      expect(parsed.some((reply) => reply.result?.structuredContent?.sum === 5)).toBe(true);
      expect(parsed.some((reply) => reply.result?.contents?.[0]?.text === "note 7")).toBe(true);
    });
  }

  it("a 2025-03-26 batch: synchronous when every handler is, a promise otherwise, the same reply", async () => {
    const open = line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: CLIENT },
    });
    const batch = line([
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "n://3" } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "boom" } },
    ]);
    const replies: Record<Mode, unknown> = { sync: undefined, async: undefined };
    for (const mode of ["sync", "async"] as const) {
      const connection = connectLines(build(mode).server);
      await replyTo(connection, open);
      const { returned, replies: sent, reply } = receiveLine(connection, batch);
      expect(returned instanceof Promise, mode).toBe(mode === "async");
      // Synchronous: the batch's one reply line was sent before receive returned.
      expect(sent.length, mode).toBe(mode === "sync" ? 1 : 0);
      replies[mode] = await reply;
    }
    expect(typeof replies.sync).toBe("string");
    expect(replies.async).toBe(replies.sync);
    expect((JSON.parse(replies.sync as string) as { id: number }[]).map((reply) => reply.id)).toEqual([2, 3, 4]);
  });

  it("an async refinement on a synchronous handler's input makes the reply a promise", async () => {
    const server = createServer({ name: "refine", version: "1.0.0" });
    server.tool({
      name: "check",
      description: "Check",
      input: { word: z.string().refine(async (word) => word.length > 2, "too short") },
      handler: ({ word }) => word,
    });
    const connection = connectLines(server);
    const request = (id: number, word: string) =>
      line({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "check", arguments: { word }, _meta: STATELESS_META },
      });
    const { returned, reply } = receiveLine(connection, request(1, "long"));
    expect(returned).toBeInstanceOf(Promise);
    expect(JSON.parse((await reply) as string).result.content).toEqual([{ type: "text", text: "long" }]);
    expect(JSON.parse((await replyTo(connection, request(2, "no"))) as string).result.isError).toBe(true);
  });
});
