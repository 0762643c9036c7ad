import { describe, expect, it } from "vitest";
import { printable } from "./printable.js";

describe("printable", () => {
  it("shows escape sequences, CR, newlines, C1 controls and bidi overrides escaped, and leaves text and tabs", () => {
    expect(printable("\x1b]0;title\x07\x1b[31mred\x1b[0m")).toBe("\\u001b]0;title\\u0007\\u001b[31mred\\u001b[0m");
    expect(printable("a\r\x1b[2Kb\nc")).toBe("a\\r\\u001b[2Kb\\nc");
    expect(printable("\u009b31m \u202eevil\u2066 \x7f")).toBe("\\u009b31m \\u202eevil\\u2066 \\u007f");
    expect(printable("plain\ttext: é, 日本, 🙂")).toBe("plain\ttext: é, 日本, 🙂");
  });
});
