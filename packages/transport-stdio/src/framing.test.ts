import { describe, expect, it } from "vitest";
import { frame, tooLargeReply } from "./framing.js";

describe("frame", () => {
  it('ends a line with "\\n", as it is when it holds no U+2028 or U+2029', () => {
    expect(frame('{"a":"x\\n é"}')).toBe('{"a":"x\\n é"}\n');
  });

  it("escapes U+2028 and U+2029, so the line stays one line and still parses to the same value", () => {
    const framed = frame('{"a":"\u2028x\u2029"}');
    expect(framed).toBe('{"a":"\\u2028x\\u2029"}\n');
    expect(JSON.parse(framed)).toEqual({ a: "\u2028x\u2029" });
  });
});

describe("tooLargeReply", () => {
  it("answers -32600 with the id as the reader found it, naming the size and the limit", () => {
    const event = { kind: "oversized", bytes: 2048, idText: "9007199254740993", notification: false } as const;
    expect(tooLargeReply(event, 1024)).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600,"message":"Message too large: 2048 bytes, over the limit of 1024 bytes"}}',
    );
  });
});
