// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the cases are source text holding template literals
import { describe, expect, it } from "vitest";
import { closingBrace } from "./class-file.js";

// The index of the brace that closes the block opening at the first `{` of `source`.
const close = (source: string) => closingBrace(source, source.indexOf("{"));

describe("closingBrace", () => {
  it.each([
    ["nested blocks", "class A { m() { if (x) { y(); } } } after"],
    ["braces in strings and comments", "class A { s = \"}\"; t = '{'; // }\n /* } */ } after"],
    ["braces in a template's text", "class A { t = `}{ \\` }`; } after"],
    ["a template's ${…}, an object inside it, and text after it", "class A { t = `a ${ { b: 1 }.b } }c`; } after"],
    ["two ${…} in one template", "class A { t = `${a}}${b}{`; } after"],
    ["a template inside a template's ${…}", "class A { t = `x ${`y ${z} }`} }`; } after"],
  ])("finds the end of the class past %s", (_, source) => {
    expect(close(source)).toBe(source.lastIndexOf("} after"));
  });

  it("is -1 when the block never closes", () => {
    expect(close("class A { t = `${a}`; ")).toBe(-1);
  });
});
