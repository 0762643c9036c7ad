import { describe, expect, it } from "vitest";
import { cookiePairs, headerValue, pathValue, queryPairs, styleOf } from "./serialize.js";

// The style examples of the OpenAPI 3.0/3.1 specification ("Style Examples"): color as a string, an array and an
// object, in each style and with and without explode.

const string = "blue";
const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

describe("parameter styles, as the specification's examples write them", () => {
  it.each([
    ["simple", false, "blue", "blue,black,brown", "R,100,G,200,B,150"],
    ["simple", true, "blue", "blue,black,brown", "R=100,G=200,B=150"],
    ["label", false, ".blue", ".blue,black,brown", ".R,100,G,200,B,150"],
    ["label", true, ".blue", ".blue.black.brown", ".R=100.G=200.B=150"],
    ["matrix", false, ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"],
    ["matrix", true, ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"],
  ] as const)("path, %s, explode %s", (style, explode, one, many, keyed) => {
    expect(pathValue("color", style, explode, string)).toBe(one);
    expect(pathValue("color", style, explode, array)).toBe(many);
    expect(pathValue("color", style, explode, object)).toBe(keyed);
  });

  it.each([
    ["form", false, ["color=blue"], ["color=blue,black,brown"], ["color=R,100,G,200,B,150"]],
    ["form", true, ["color=blue"], ["color=blue", "color=black", "color=brown"], ["R=100", "G=200", "B=150"]],
    ["spaceDelimited", false, ["color=blue"], ["color=blue%20black%20brown"], ["color=R%20100%20G%20200%20B%20150"]],
    ["pipeDelimited", false, ["color=blue"], ["color=blue|black|brown"], ["color=R|100|G|200|B|150"]],
  ] as const)("query, %s, explode %s", (style, explode, one, many, keyed) => {
    expect(queryPairs("color", style, explode, string)).toEqual(one);
    expect(queryPairs("color", style, explode, array)).toEqual(many);
    expect(queryPairs("color", style, explode, object)).toEqual(keyed);
  });

  it("query deepObject, header and cookie", () => {
    expect(queryPairs("color", "deepObject", true, object)).toEqual([
      "color%5BR%5D=100",
      "color%5BG%5D=200",
      "color%5BB%5D=150",
    ]);
    expect(queryPairs("color", "deepObject", true, "blue")).toEqual({
      error: 'query parameter "color" (deepObject) takes an object',
    });
    expect(headerValue(false, array)).toBe("blue,black,brown");
    expect(headerValue(true, object)).toBe("R=100,G=200,B=150");
    expect(headerValue(false, object)).toBe("R,100,G,200,B,150");
    expect(headerValue(false, ["a\r\nb"])).toBeUndefined();
    expect(cookiePairs("color", true, array)).toEqual(["color=blue", "color=black", "color=brown"]);
    expect(cookiePairs("color", false, array)).toEqual(["color=blue,black,brown"]);
    expect(cookiePairs("color", true, object)).toEqual(["R=100", "G=200", "B=150"]);
  });

  it("defaults and refuses a style a place does not take", () => {
    expect(styleOf("query", undefined, undefined)).toEqual({ style: "form", explode: true });
    expect(styleOf("path", undefined, undefined)).toEqual({ style: "simple", explode: false });
    expect(styleOf("cookie", undefined, false)).toEqual({ style: "form", explode: false });
    expect(styleOf("header", "matrix", undefined)).toBe('style "matrix" is not one a header parameter takes');
  });
});
