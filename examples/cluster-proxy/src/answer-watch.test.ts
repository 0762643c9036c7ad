import { describe, expect, it } from "vitest";
import { AnswerWatch, requestIds } from "./answer-watch.js";

const text = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
const errors = (ending: string) =>
  ending
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => (JSON.parse(line.slice(6)) as { id: unknown }).id);

describe("the answer watch", () => {
  it("finds the ids of a request or a batch, not of notifications, answers or other bodies", () => {
    expect(requestIds(text({ jsonrpc: "2.0", id: 1, method: "tools/call" }))).toEqual([1]);
    expect(
      requestIds(
        text([
          { jsonrpc: "2.0", id: "a", method: "ping" },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { jsonrpc: "2.0", id: 2, result: {} },
        ]),
      ),
    ).toEqual(["a"]);
    expect(requestIds(text("not json"))).toEqual([]);
  });

  it("answers only what the stream has not, after a blank line when the stream was cut mid-event", () => {
    const watch = new AnswerWatch();
    const answer = `id: 4\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}\n\n`;
    // Split across chunks, with CRLF lines, as a backend may write.
    const crlf = answer.replaceAll("\n", "\r\n");
    watch.feed(text(crlf.slice(0, 9)));
    watch.feed(text(crlf.slice(9)));
    expect(errors(watch.ending([1, 2]))).toEqual([2]);
    expect(watch.ending([1, 2]).startsWith("event: message\n")).toBe(true);
    watch.feed(text('data: {"jsonrpc":"2.0","id":2,"res'));
    const ending = watch.ending([1, 2]);
    expect(ending.startsWith("\n\n")).toBe(true);
    expect(errors(ending)).toEqual([2]);
    expect(new AnswerWatch().ending([])).toBe("");
  });
});
