import { describe, expect, it } from "vitest";
import { TagIndex } from "./tag-index.js";

const PROTOTYPE_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];

describe("TagIndex", () => {
  it("maps each tag to the ids that carry it, in the order they were added", () => {
    const index = new TagIndex();
    index.add("1", ["a", "b"]);
    index.add("2", ["b"]);
    index.add("3", ["b", "a", "b"]);
    expect(index.idsOf("a")).toEqual(["1", "3"]);
    expect(index.idsOf("b")).toEqual(["1", "2", "3"]);
    expect(index.idsOf("c")).toEqual([]);
    expect(index.toJson()).toBe('{"a":["1","3"],"b":["1","2","3"]}');
  });

  it("forgets a removed note, and a tag once no note carries it", () => {
    const index = new TagIndex();
    index.add("1", ["a", "b"]);
    index.add("2", ["b"]);
    index.remove("1", ["a", "b"]);
    expect(index.idsOf("a")).toEqual([]);
    expect(index.idsOf("b")).toEqual(["2"]);
    expect(index.size).toBe(1);
    index.remove("2", ["b"]);
    index.remove("9", ["never"]);
    expect(index.size).toBe(0);
    expect(index.toJson()).toBe("{}");
  });

  it("treats tags named like Object.prototype members as plain tags", () => {
    const index = new TagIndex();
    index.add("1", PROTOTYPE_NAMES);
    for (const tag of PROTOTYPE_NAMES) expect(index.idsOf(tag), tag).toEqual(["1"]);
    const parsed = JSON.parse(index.toJson()) as Record<string, string[]>;
    expect(Object.entries(parsed)).toEqual(PROTOTYPE_NAMES.map((tag) => [tag, ["1"]]));
    expect(index.idsOf("isPrototypeOf")).toEqual([]);
  });

  it("writes tags that need escaping as valid JSON", () => {
    const index = new TagIndex();
    const odd = ['quo"te', "back\\slash", "line\nbreak", "\u2028"];
    index.add("1", odd);
    expect(Object.keys(JSON.parse(index.toJson()))).toEqual(odd);
  });
});
