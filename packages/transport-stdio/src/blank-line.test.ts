import { describe, expect, it } from "vitest";
import { isBlankLine } from "./blank-line.js";

describe("isBlankLine", () => {
  it("is true for nothing but spaces, tabs, CR and LF", () => {
    for (const text of ["", " ", "\t", "\r", " \t \r\n "]) expect(isBlankLine(text), JSON.stringify(text)).toBe(true);
  });

  it("is false for characters JSON does not count as whitespace, alone or among spaces", () => {
    for (const text of ["\u2028", "\u2029", " \u2028 ", "\u2029\t\u2028", "\u00a0", "\ufeff", "\v", "\f", " x "]) {
      expect(isBlankLine(text), JSON.stringify(text)).toBe(false);
    }
  });
});
