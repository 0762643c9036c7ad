import { describe, expect, it } from "vitest";
import { parsePairs } from "./call.js";
import { withArticle } from "./schema-summary.js";

describe("withArticle", () => {
  it.each([
    ["integer", "an integer"],
    ["number", "a number"],
    ["object", "an object"],
    ["array", "an array"],
    ["string", "a string"],
  ])("%s", (word, expected) => {
    expect(withArticle(word)).toBe(expected);
  });
});

describe("what key=value says of a value that does not fit", () => {
  const schema = {
    type: "object",
    properties: { count: { type: "integer" }, ratio: { type: "number" }, tags: { type: "array" } },
  };
  it.each([
    ["count=many", 'count is an integer; got "many"'],
    ["ratio=half", 'ratio is a number; got "half"'],
    ["tags=[a", "tags is JSON (an array); got [a"],
  ])("%s", (pair, message) => {
    expect(() => parsePairs([pair], schema)).toThrow(message);
  });
});
