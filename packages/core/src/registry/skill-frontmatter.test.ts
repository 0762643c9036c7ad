import { describe, expect, it } from "vitest";
import { FrontmatterError, parseFrontmatter } from "./skill-frontmatter.js";

const read = (yaml: string) => parseFrontmatter(`---\n${yaml}---\nBody\n`);
const refusal = (yaml: string) => {
  try {
    read(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(FrontmatterError);
    return (error as Error).message;
  }
  throw new Error("expected a FrontmatterError");
};

describe("SKILL.md frontmatter", () => {
  it("reads the YAML real skills use, as YAML 1.2 types it", () => {
    expect(
      read(
        [
          "# a comment",
          "name: pdf-processing",
          "description: 'It''s for PDFs' # trailing comment",
          'license: "Apache-2.0 \\u00e9"',
          "count: 3",
          "ratio: 0.5",
          "enabled: true",
          "nothing: ~",
          "empty:",
          "version: 2.1.0",
          "allowed-tools: [Read, 'Bash(git:*)', \"x y\"]",
          "tags:",
          "  - one",
          "  - two",
          "metadata:",
          "  owner: billing",
          '  "quoted key": value',
          "notes: |",
          "  line one",
          "    indented",
          "",
          "  after a blank",
          "summary: >-",
          "  folded",
          "  together",
          "",
          "",
        ].join("\n"),
      ),
    ).toEqual({
      name: "pdf-processing",
      description: "It's for PDFs",
      license: "Apache-2.0 é",
      count: 3,
      ratio: 0.5,
      enabled: true,
      nothing: null,
      empty: null,
      version: "2.1.0",
      "allowed-tools": ["Read", "Bash(git:*)", "x y"],
      tags: ["one", "two"],
      metadata: { owner: "billing", "quoted key": "value" },
      notes: "line one\n  indented\n\nafter a blank\n",
      summary: "folded together",
    });
  });

  it("takes CRLF line ends and a BOM, as hosts do", () => {
    expect(parseFrontmatter("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nBody")).toEqual({
      name: "a",
      description: "b",
    });
  });

  it("a sequence may sit at its key's indent", () => {
    expect(read("tags:\n- one\n- two\nname: x\n")).toEqual({ tags: ["one", "two"], name: "x" });
  });

  it("a __proto__ field is a field like any other", () => {
    const parsed = read("__proto__: x\n");
    expect(Object.keys(parsed)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it("refuses what YAML parsers read differently, or this reader does not support, with the file's line", () => {
    expect(refusal("name: a\nactive: yes\n")).toBe('line 3: "yes" reads differently in YAML parsers: quote it');
    expect(refusal("when: 2024-01-01\n")).toContain('"2024-01-01" reads differently');
    expect(refusal("n: 0x1F\n")).toContain("reads differently");
    expect(refusal("n: 1_000\n")).toContain("reads differently");
    expect(refusal("on: True\n")).toContain("reads differently");
    expect(refusal("a: b: c\n")).toContain('holds ": "');
    expect(refusal("a: &anchor x\n")).toContain("may not begin with");
    expect(refusal("a: {b: c}\n")).toContain("flow mapping");
    expect(refusal("a:\n  - b: c\n")).toContain("mapping inside a sequence item");
    expect(refusal("a: x\n  continued\n")).toContain("unexpected indentation");
    expect(refusal("a: 1\na: 2\n")).toBe('line 3: the field "a" is given twice');
    expect(refusal("a:\n\tb: c\n")).toContain("tabs");
    expect(refusal('a: "open\n')).toContain("must close on its own line");
    expect(refusal("- a\n")).toContain("must be a mapping");
    expect(refusal("a: >\n  x\n    more\n")).toContain("more-indented");
    let deep = "";
    for (let level = 0; level < 12; level++) deep += `${"  ".repeat(level)}k${level}:\n`;
    expect(refusal(`${deep}${"  ".repeat(12)}v: x\n`)).toContain("deeper than");
  });
});
