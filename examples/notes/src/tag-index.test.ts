import { createServer } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { addToTags, removeFromTags, seedTags, tagsJson } from "./tag-index.js";

const PROTOTYPE_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];

// A server's own store, on its memory engine: what the notes server keeps its index in.
const storeOf = () => createServer({ name: "tags", version: "1.0.0" }).store;
const parsed = async (store: ReturnType<typeof storeOf>) =>
  Object.entries(JSON.parse(await tagsJson(store)) as Record<string, string[]>);

describe("the tag index in the store", () => {
  it("maps each tag to the ids that carry it, in the order they were added, tags in key order", async () => {
    const store = storeOf();
    await addToTags(store, "1", ["b", "a"]);
    await addToTags(store, "2", ["b"]);
    await addToTags(store, "3", ["b", "a", "b"]);
    expect(await tagsJson(store)).toBe('{"a":["1","3"],"b":["1","2","3"]}');
  });

  it("forgets a removed note, and a tag once no note carries it", async () => {
    const store = storeOf();
    await addToTags(store, "1", ["a", "b"]);
    await addToTags(store, "2", ["b"]);
    await removeFromTags(store, "1", ["a", "b"]);
    expect(await tagsJson(store)).toBe('{"b":["2"]}');
    await removeFromTags(store, "2", ["b"]);
    await removeFromTags(store, "9", ["never"]);
    expect(await tagsJson(store)).toBe("{}");
  });

  it("seeds notes 1, 2, … at once, merged with what is there", async () => {
    const store = storeOf();
    await addToTags(store, "3", ["a"]);
    await seedTags(store, [{ tags: ["a", "b"] }, { tags: ["a", "a"] }]);
    await seedTags(store, [{ tags: ["a", "b"] }, { tags: ["a"] }]);
    expect(await tagsJson(store)).toBe('{"a":["1","2","3"],"b":["1"]}');
  });

  it("treats tags named like Object.prototype members as plain tags", async () => {
    const store = storeOf();
    await addToTags(store, "1", PROTOTYPE_NAMES);
    expect(await parsed(store)).toEqual([...PROTOTYPE_NAMES].sort().map((tag) => [tag, ["1"]]));
  });

  it("writes tags that need escaping as valid JSON", async () => {
    const store = storeOf();
    const odd = ['quo"te', "back\\slash", "line\nbreak", "\u2028"];
    await addToTags(store, "1", odd);
    expect(Object.keys(JSON.parse(await tagsJson(store))).sort()).toEqual([...odd].sort());
  });
});
