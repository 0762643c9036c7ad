import { describe, expect, it } from "vitest";
import { busyReply, MixedBatch, NOT_URGENT, urgentMessage } from "./line-kinds.js";

describe("urgentMessage: what never waits behind queued requests", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}', "an answer"],
    ['{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}', "an error answer"],
    ['{"jsonrpc":"2.0","id":0,"\\u0072esult":{}}', "an answer whose key is escaped"],
    ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}', "a cancellation"],
    ['{"jsonrpc":"2.0","method":"notifications\\/cancelled","params":{"requestId":1}}', "a cancellation with \\/"],
    ['{"jsonrpc":"2.0","method":"notifications/cancell\\u0065d","params":{"requestId":1}}', "an escaped cancellation"],
    ['[{"jsonrpc":"2.0","id":0,"result":{}},{"jsonrpc":"2.0","method":"notifications/cancelled"}]', "a batch of them"],
  ])("%s (%s) is urgent", (line) => {
    expect(urgentMessage(line)).toEqual(JSON.parse(line));
  });

  it.each([
    ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', "a request"],
    [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log","arguments":{"level":"error","result":1}}}',
      "a request that says error",
    ],
    [
      '{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":2}}',
      "a cancellation with an id",
    ],
    ['{"jsonrpc":"2.0","id":1,"method":"x","result":{}}', "a request with a result key"],
    ['{"jsonrpc":"2.0","method":"notifications/initialized"}', "another notification"],
    ["[]", "an empty batch"],
    ['{"result":', "broken JSON"],
  ])("%s (%s) waits its turn", (line) => {
    expect(urgentMessage(line)).toBe(NOT_URGENT);
  });

  it("a batch holding answers and a request: its answers are taken out, the batch waits its turn", () => {
    const line =
      '[{"jsonrpc":"2.0","id":0,"result":{}},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"no"}}]';
    const found = urgentMessage(line);
    expect(found).toBeInstanceOf(MixedBatch);
    expect((found as MixedBatch).message).toEqual(JSON.parse(line));
    expect((found as MixedBatch).answers).toEqual([
      { jsonrpc: "2.0", id: 0, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: 1, message: "no" } },
    ]);
    expect(urgentMessage('[{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}]')).toBe(NOT_URGENT);
  });
});

// The reply to the line `text`, parsed as the server reads it.
const busy = (text: string, why = "Server busy") => busyReply(JSON.parse(text), text, why);

describe("busyReply", () => {
  it("answers a request, and each request of a batch, with -32000; a notification not at all", () => {
    const why = "Server busy";
    expect(JSON.parse(busy('{"jsonrpc":"2.0","id":"a","method":"ping"}') as string)).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32000, message: why },
    });
    const batch =
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress"},{"jsonrpc":"2.0","id":2,"method":"ping"}]';
    expect(JSON.parse(busy(batch) as string).map((reply: { id: unknown }) => reply.id)).toEqual([1, 2]);
    expect(busy('{"jsonrpc":"2.0","method":"notifications/progress"}')).toBeUndefined();
    expect(busy('[{"jsonrpc":"2.0","method":"notifications/progress"}]')).toBeUndefined();
  });

  it("echoes ids past 2^53 exactly as the line wrote them, and the last of duplicate id keys", () => {
    expect(busy('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}')).toContain('"id":9007199254740993,');
    expect(busy('{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"ping"}')).toContain('"id":-1e308,');
    const batch =
      '[{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},{"jsonrpc":"2.0","id":"x","method":"ping"}]';
    expect(busy(batch)).toBe(
      '[{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32000,"message":"Server busy"}},{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"Server busy"}}]',
    );
  });
});
