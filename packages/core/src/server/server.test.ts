import { describe, expect, it } from "vitest";
import { connectLines, replyTo } from "../connection/connection.test-util.js";
import { text } from "../protocol/results.js";
import { MetaKey } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { createServer } from "./server.js";

function server() {
  const s = createServer({ name: "content", version: "1" });
  s.tool({
    name: "with_meta",
    description: "A result with _meta",
    handler: () => ({ content: [text("ok")], _meta: { "example.com/trace": "abc" } }),
  });
  return s;
}

describe.each(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const)("results in %s", (protocolVersion) => {
  it("pass a result's own _meta through (beside the server's identity in 2026-07-28)", async () => {
    const client = await createTestClient(server(), { protocolVersion });
    const result = await client.callTool("with_meta");
    expect(result._meta).toEqual(
      protocolVersion === "2026-07-28"
        ? { "example.com/trace": "abc", [MetaKey.serverInfo]: { name: "content", version: "1" } }
        : { "example.com/trace": "abc" },
    );
  });
});

describe("2026-07-28 results, byte for byte", () => {
  const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
  const SERVER_META = `"_meta":{"${MetaKey.serverInfo}":{"name":"stamps","version":"1"}}`;
  const returns = (value: unknown) => () => value;

  it("resultType and the server's _meta follow the result's own keys; a key it has keeps its place", async () => {
    const s = createServer({ name: "stamps", version: "1" });
    const results: Record<string, unknown> = {
      plain: { content: [text("a")] },
      own_meta: { _meta: { "example.com/trace": "t" }, content: [text("b")] },
      own_undefined_meta: { _meta: undefined, content: [text("c")] },
      own_result_type: { resultType: "complete", content: [text("d")] },
      to_json: { content: [text("e")], toJSON: () => ({ content: [], note: "own toJSON" }) },
    };
    for (const [name, value] of Object.entries(results)) s.tool({ name, description: name, handler: returns(value) });
    const connection = connectLines(s);
    const call = (name: string) =>
      replyTo(
        connection,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, _meta: META } }),
      );
    const block = (t: string) => `{"type":"text","text":"${t}"}`;
    expect(await call("plain")).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"content":[${block("a")}],"isError":false,"resultType":"complete",${SERVER_META}}}`,
    );
    expect(await call("own_meta")).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"example.com/trace":"t","${MetaKey.serverInfo}":{"name":"stamps","version":"1"}},"content":[${block("b")}],"isError":false,"resultType":"complete"}}`,
    );
    expect(await call("own_undefined_meta")).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{${SERVER_META},"content":[${block("c")}],"isError":false,"resultType":"complete"}}`,
    );
    expect(await call("own_result_type")).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[${block("d")}],"isError":false,${SERVER_META}}}`,
    );
    // A toJSON of its own is what JSON.stringify sends, stamp and all: as it always was.
    expect(await call("to_json")).toBe(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"note":"own toJSON"}}`);
  });

  it("a result that is no object's JSON (a boxed primitive) goes out as its own keys and the stamp, valid JSON", async () => {
    // What a stamped copy ({ ...result }) has: a String's characters by index, a Number's nothing.
    for (const [value, keys] of [
      [new String("ab"), '"0":"a","1":"b",'],
      [new Number(3), ""],
    ] as const) {
      const s = createServer({ name: "stamps", version: "1" }).use(() => value as never);
      s.tool({ name: "any", description: "any", handler: () => "unused" });
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "any", _meta: META },
      });
      expect(await replyTo(connectLines(s), call)).toBe(
        `{"jsonrpc":"2.0","id":3,"result":{${keys}"resultType":"complete",${SERVER_META}}}`,
      );
    }
  });

  it("an empty result is only the stamp", async () => {
    // A middleware may answer with a result of its own: here, an empty one.
    const s = createServer({ name: "stamps", version: "1" }).use(() => ({}));
    s.tool({ name: "any", description: "any", handler: () => "unused" });
    const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "any", _meta: META } });
    expect(await replyTo(connectLines(s), call)).toBe(
      `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",${SERVER_META}}}`,
    );
  });
});
