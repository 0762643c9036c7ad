import { describe, expect, it } from "vitest";
import { linearPattern } from "./linear-regex.js";
import { re2Properties, re2Property } from "./unicode-properties.js";

// Core's table of the Unicode properties RE2 reads, against the two engines themselves: each name it lets through is
// one a RegExp (V8) accepts and RE2 (re2js) compiles, to the same characters.

// Every 331st code point (surrogates left out: no string holds one alone as a character), and the edges.
const POINTS: string[] = [];
for (let point = 0; point <= 0x10ffff; point += point < 0x3000 ? 7 : 331) {
  if (point < 0xd800 || point > 0xdfff) POINTS.push(String.fromCodePoint(point));
}
POINTS.push("\u{10ffff}", "\u{e0001}", "😀", "Ω", "ſ");

describe("the Unicode properties RE2 reads", () => {
  const all = re2Properties();

  it("are ECMA-262's names, which a RegExp with the u flag accepts", () => {
    const refused = [...all.keys()].filter((name) => {
      try {
        new RegExp(`\\p{${name}}`, "u");
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toEqual([]);
    expect(all.size).toBeGreaterThan(700);
  });

  it("match in RE2 what they match in a RegExp", () => {
    // One ECMA-262 name per RE2 name: the others only name it again.
    const each = new Map([...all].map(([name, re2]) => [re2, name]));
    const apart: string[] = [];
    for (const name of each.values()) {
      const regExp = new RegExp(`^\\p{${name}}$`, "u");
      const re2 = linearPattern(`^\\p{${name}}$`);
      const negated = linearPattern(`^\\P{${name}}$`);
      for (const text of POINTS) {
        if (regExp.test(text) !== re2.test(text) || regExp.test(text) === negated.test(text)) {
          apart.push(`${name} U+${(text.codePointAt(0) as number).toString(16)}`);
        }
      }
    }
    expect(apart).toEqual([]);
  });

  it("say what to write for what RE2 lacks", () => {
    expect(re2Property("sc=Grek")).toEqual({ name: "Greek" });
    expect(re2Property("Greek")).toMatchObject({ fix: "write \\p{Script=Greek}" });
    expect(re2Property("scx=Greek")).toMatchObject({ lacks: "Script_Extensions, which RE2 lacks" });
    expect(re2Property("ID_Start")).toMatchObject({ lacks: "a property RE2 lacks" });
    // Names are case-sensitive in ECMA-262: RE2's own spelling of ASCII is not one.
    expect(re2Property("Ascii")).toMatchObject({ lacks: "a property RE2 lacks" });
  });
});
