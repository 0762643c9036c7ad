import { describe, expect, it } from "vitest";
import { AnswerWatch, requestIds } from "./answer-watch.js";

const text = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
const errors = (ending: string) =>
  ending
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => (JSON.parse(line.slice(6)) as { id: unknown }).id);
// The id's text as the proxy wrote it (JSON.parse would round a number past 2^53).
const idTexts = (ending: string) =>
  ending
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => /"id":(.*?),"error"/.exec(line)?.[1]);

describe("the answer watch", () => {
  it("finds the ids of a request or a batch, not of notifications, answers or other bodies", () => {
    expect(requestIds(text({ jsonrpc: "2.0", id: 1, method: "tools/call" }))).toEqual(["1"]);
    expect(
      requestIds(
        text([
          { jsonrpc: "2.0", id: "a", method: "ping" },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { jsonrpc: "2.0", id: 2, result: {} },
        ]),
      ),
    ).toEqual(['"a"']);
    expect(requestIds(text("not json"))).toEqual([]);
  });

  it("writes each id exactly as the request carried it, past 2^53 and in a batch", () => {
    const big = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call"}';
    expect(requestIds(text(big))).toEqual(["12345678901234567890"]);
    const batch = `[ {"jsonrpc":"2.0","id":"a,]}","method":"ping"}, ${big.replace("567890,", "567891,")}, {"jsonrpc":"2.0","id":1e400,"method":"ping"} ]`;
    expect(requestIds(text(batch))).toEqual(['"a,]}"', "12345678901234567891", "1e400"]);
    const watch = new AnswerWatch();
    // The other id JSON.parse rounds to the same double was answered: this one was not.
    watch.feed(text(`data: {"jsonrpc":"2.0","id":12345678901234567891,"result":{}}\n\n`));
    const ending = watch.ending(requestIds(text(big)));
    expect(idTexts(ending)).toEqual(["12345678901234567890"]);
    expect(idTexts(watch.ending(requestIds(text(batch))))).toEqual(['"a,]}"', "1e400"]);
  });

  it("answers only what the stream has not, after a blank line when the stream was cut mid-event", () => {
    const watch = new AnswerWatch();
    const answer = `id: 4\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}\n\n`;
    // Split across chunks, with CRLF lines, as a backend may write.
    const crlf = answer.replaceAll("\n", "\r\n");
    watch.feed(text(crlf.slice(0, 9)));
    watch.feed(text(crlf.slice(9)));
    expect(errors(watch.ending(["1", "2"]))).toEqual([2]);
    expect(watch.ending(["1", "2"]).startsWith("event: message\n")).toBe(true);
    watch.feed(text('data: {"jsonrpc":"2.0","id":2,"res'));
    const ending = watch.ending(["1", "2"]);
    expect(ending.startsWith("\n\n")).toBe(true);
    expect(errors(ending)).toEqual([2]);
    expect(new AnswerWatch().ending([])).toBe("");
  });
});
