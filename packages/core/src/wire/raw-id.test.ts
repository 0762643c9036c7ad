import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { ErrorCode, errorLine } from "./json-rpc.js";
import { idText, rawBatchIds, rawNumberMember, rawParamsNumber } from "./raw-id.js";

const huge = "123456789012345678901234567890";

describe("ids past 2^53 are echoed exactly", () => {
  it("reads the raw text of the top-level id, not of a nested one", () => {
    expect(rawNumberMember(`{"params":{"id":1},"id":${huge}}`, "id")).toBe(huge);
    expect(rawNumberMember(`{"a":"\\"id\\":5","id" : -9007199254740993.5e3 }`, "id")).toBe("-9007199254740993.5e3");
    expect(rawNumberMember(`{"\\u0069d":${huge}}`, "id")).toBe(huge);
    expect(rawNumberMember(`{"id":"str"}`, "id")).toBeUndefined();
    expect(idText(7, "{}")).toBe("7");
    expect(idText(2 ** 60, `{"id":${huge}}`)).toBe(huge);
  });

  it("in results, errors and invalid-request replies", async () => {
    const s = createServer({ name: "ids", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => "ok" });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const ok = await client.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"t"}}`);
    expect(ok).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${huge},"result":`));
    const unknown = await client.send(`{"jsonrpc":"2.0","id":${huge},"method":"nope"}`);
    expect(unknown).toMatch(new RegExp(`"id":${huge},"error":\\{"code":-32601`));
    const invalid = await client.send(`{"jsonrpc":"1.0","id":${huge},"method":"tools/list"}`);
    expect(invalid).toMatch(new RegExp(`"id":${huge},"error":\\{"code":-32600`));
  });

  it("takes the last of duplicate id keys, as JSON.parse does", () => {
    expect(rawNumberMember(`{"id":8,"id":-1e308,"method":"ping"}`, "id")).toBe("-1e308");
    expect(rawNumberMember(`{"id":${huge},"id":"s"}`, "id")).toBeUndefined();
    expect(rawNumberMember(`{"id":"s","params":{"id":1},"\\u0069d":${huge}}`, "id")).toBe(huge);
    expect(idText(-1e308, `{"id":8,"id":-1e308}`)).toBe("-1e308");
    expect(idText(Number.POSITIVE_INFINITY, `{"id":1e400}`)).toBe("1e400");
    expect(idText("a\u2028", undefined)).toBe('"a\u2028"');
    expect(idText(undefined, "{}")).toBe("null");
    expect(idText(null, `{"id":8,"id":null}`)).toBe("null");
  });

  it("one error-line writer: the id's text as given, unserializable data a -32603 for the same id", () => {
    expect(errorLine(huge, { code: -32600, message: "no" })).toBe(
      `{"jsonrpc":"2.0","id":${huge},"error":{"code":-32600,"message":"no"}}`,
    );
    const heard: unknown[] = [];
    const line = errorLine('"x"', { code: 1, message: "m", data: 1n }, (error) => heard.push(error));
    expect(line).toBe(
      `{"jsonrpc":"2.0","id":"x","error":{"code":${ErrorCode.InternalError},"message":"Internal error"}}`,
    );
    expect(heard).toHaveLength(1);
  });

  it("a request with such an id can still be cancelled", async () => {
    const s = createServer({ name: "ids", version: "1" });
    let aborted = false;
    s.tool({
      name: "slow",
      description: "slow",
      input: { n: z.number().optional() },
      handler: (_args, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve("stopped");
          }),
        ),
    });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const reply = client.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"slow"}}`);
    await client.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${huge}}}`);
    expect(await reply).toBeUndefined();
    expect(aborted).toBe(true);
  });
});

describe("two ids JSON.parse rounds to one double are two requests", () => {
  // 9007199254740993 reads as 9007199254740992, and so does 9007199254740992.0; 1.50e300 as 1.5e300.
  const ids = ["9007199254740993", "9007199254740992", "9007199254740992.0", "1.5e300", "1.50e300"];

  function slow() {
    const s = createServer({ name: "ids", version: "1" });
    const stopped: string[] = [];
    s.tool({
      name: "slow",
      description: "Waits for its cancellation",
      input: { tag: z.string() },
      handler: ({ tag }, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            stopped.push(tag);
            resolve("stopped");
          }),
        ),
    });
    s.tool({ name: "t", description: "t", handler: () => "ok" });
    return { s, stopped };
  }

  it("both run, and cancelling one (as it was written) cancels it alone", async () => {
    const { s, stopped } = slow();
    const lines: string[] = [];
    const connection = s.connect({ send: (line) => lines.push(line) });
    const receive = (line: string) => Promise.resolve(connection.receive(line));
    await receive(
      `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
    );
    await receive(`{"jsonrpc":"2.0","method":"notifications/initialized"}`);
    lines.length = 0;
    const call = (id: string) =>
      receive(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"slow","arguments":{"tag":"${id}"}}}`,
      );
    const calls = ids.map(call);
    expect(lines).toEqual([]);
    for (const id of ids.slice(0, 3)) {
      await receive(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`);
      expect(stopped.at(-1)).toBe(id);
    }
    // A later duplicate of one still in flight is refused, naming the id as it was written.
    await receive(`{"jsonrpc":"2.0","id":1.50e300,"method":"tools/call","params":{"name":"t"}}`);
    expect(lines).toEqual([
      `{"jsonrpc":"2.0","id":1.50e300,"error":{"code":-32600,"message":"Invalid request: id 1.50e300 is already in use by a request in flight"}}`,
    ]);
    await receive(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"x","requestId":1.5e300}}`);
    expect(stopped.at(-1)).toBe("1.5e300");
    await receive(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.50e300}}`);
    await Promise.all(calls);
    expect(stopped).toEqual(ids);
    expect(lines).toHaveLength(1);
  });

  it("reads params.requestId's own text, the last of duplicate keys, not a nested one", () => {
    expect(rawParamsNumber(`{"params":{"requestId":${huge}}}`, "requestId")).toBe(huge);
    expect(rawParamsNumber(`{"params":{"x":{"requestId":1},"requestId":2e400},"requestId":3}`, "requestId")).toBe(
      "2e400",
    );
    expect(rawParamsNumber(`{"params":{"requestId":1},"params":{"requestId":${huge}}}`, "requestId")).toBe(huge);
    expect(rawParamsNumber(`{"params":{"requestId":"s"}}`, "requestId")).toBeUndefined();
    expect(rawParamsNumber(`{"requestId":5}`, "requestId")).toBeUndefined();
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("ids echoed as JSON.parse read them (%s)", (protocolVersion) => {
  const meta =
    protocolVersion === "2026-07-28"
      ? `,"_meta":{"${MetaKey.protocolVersion}":"2026-07-28","${MetaKey.clientCapabilities}":{}}`
      : "";
  const ids = ["9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-1e308", "1.5E+300", '"s"'];

  async function client() {
    const s = createServer({ name: "ids", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => "ok" });
    return createTestClient(s, { protocolVersion });
  }

  it("big, negative and exponent ids in results and errors", async () => {
    const c = await client();
    for (const id of ids) {
      const ok = await c.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t"${meta}}}`);
      expect(ok, id).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${id.replace(/[.+]/g, "\\$&")},"result":`));
      const unknown = await c.send(`{"jsonrpc":"2.0","id":${id},"method":"nope","params":{${meta.slice(1)}}}`);
      expect(unknown, id).toContain(`"id":${id},"error":{"code":-32601`);
    }
  });

  it("duplicate id keys: the reply carries the last, the one the server read", async () => {
    const c = await client();
    const cases: [string, string][] = [
      [`{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"tools/call","params":{"name":"t"${meta}}}`, "-1e308"],
      [`{"jsonrpc":"2.0","id":8,"id":${huge},"method":"nope","params":{${meta.slice(1)}}}`, huge],
      [`{"jsonrpc":"2.0","id":${huge},"\\u0069d":"last","method":"nope","params":{${meta.slice(1)}}}`, '"last"'],
      [`{"jsonrpc":"1.0","id":8,"id":${huge},"method":"tools/list"}`, huge],
      [`{"jsonrpc":"2.0","id":8,"id":null,"method":"tools/list"}`, "null"],
      [`{"jsonrpc":"2.0","id":8,"id":1e400,"method":"tools/list"}`, "1e400"],
    ];
    for (const [line, id] of cases) {
      expect(await c.send(line), line).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${id.replace(/[.+]/g, "\\$&")},`));
    }
  });
});

it("2025-03-26 batches: each entry's reply carries its own id as written, the last of duplicate keys", async () => {
  expect(rawBatchIds(`[{"id":1},{"a":[{"id":2}],"id":${huge}},3,{"id":"s","id":-1e308},[{"id":4}]]`)).toEqual([
    "1",
    huge,
    undefined,
    "-1e308",
  ]);
  const s = createServer({ name: "ids", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  const client = await createTestClient(s, { protocolVersion: "2025-03-26" });
  const reply = await client.send(
    `[{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"t"}},` +
      `{"jsonrpc":"2.0","id":1,"id":-9007199254740993,"method":"nope"},` +
      `{"jsonrpc":"1.0","id":9007199254740993,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
  );
  expect(reply).toMatch(
    new RegExp(
      `^\\[\\{"jsonrpc":"2.0","id":${huge},"result":.*\\},\\{"jsonrpc":"2.0","id":-9007199254740993,"error":\\{"code":-32601.*\\},\\{"jsonrpc":"2.0","id":9007199254740993,"error":\\{"code":-32600.*\\},\\{"jsonrpc":"2.0","id":7,"result":\\{\\}\\}\\]$`,
    ),
  );
});

it("a tool without input sees {} whatever arguments arrive, in every revision", async () => {
  const seen: unknown[] = [];
  const s = createServer({ name: "no-input", version: "1" });
  s.tool({ name: "bare", description: "takes nothing", handler: (args) => seen.push(args) });
  for (const protocolVersion of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    const client = await createTestClient(s, { protocolVersion });
    await client.callTool("bare", { junk: 1, __proto__: { polluted: true } } as Record<string, unknown>);
  }
  expect(seen).toEqual([{}, {}, {}, {}]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
