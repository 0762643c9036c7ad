import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ensureImport, readServerClass } from "./class-file.js";
import { CliError } from "./exit-codes.js";

const TRACKER = new URL("../../../examples/issue-tracker/src/issue-tracker.ts", import.meta.url);

// Object keys in method bodies and decorator options are not members; every way of declaring one is.
const SHAPES = `import { McpServer, resource, tool } from "@toolsmith/decorators";
const labels = "not a member either";
export class IssuesServer extends McpServer {
  name = "issues";
  static instances = 0;
  #labels: string[] = [];
  declare body?: string;
  accessor count = 0;
  "quoted-name" = 1;
  [Symbol.iterator]() {}
  constructor(private readonly store: Map<string, string>, public owner = "me") {
    super();
  }
  get total() {
    return this.#labels.length;
  }
  set total(value: number) {}
  static create() {
    return { labels: [], body: "" };
  }
  find(id: string): string;
  find(id: number): string;
  find(id: string | number) {
    return String(id);
  }
  @resource("issues://{id}", {
    list: "listIssues",
  })
  issue() {
    const issue = {
      labels: ["bug"],
      body: \`text with }{ braces and \${"a template"}\`,
    };
    return issue;
  }
  @tool({ description: "lists" })
  listIssues() {
    return [];
  }
}
`;

describe("readServerClass", () => {
  it("names every member, static ones too, and no object key, decorator option or private name", () => {
    const found = readServerClass("issues.ts", SHAPES);
    expect(found?.name).toBe("IssuesServer");
    expect([...(found?.members ?? [])].sort()).toEqual(
      [
        "name",
        "instances",
        "body",
        "count",
        "quoted-name",
        "constructor",
        "store",
        "owner",
        "total",
        "create",
        "find",
        "issue",
        "listIssues",
      ].sort(),
    );
    expect(found?.resourceScheme).toBe("issues");
    expect(found?.close).toBe(SHAPES.lastIndexOf("}"));
  });

  it("reads the issue tracker example: its methods and fields, not the keys inside them", () => {
    const source = readFileSync(TRACKER, "utf8");
    const found = readServerClass("issue-tracker.ts", source);
    expect(found?.name).toBe("IssueTracker");
    for (const member of ["name", "instructions", "create_issue", "list_issues", "issue", "listIssues", "labelsLike"]) {
      expect(found?.members).toContain(member);
    }
    for (const key of ["labels", "body", "list", "title", "state", "complete", "readOnly", "add"]) {
      expect(found?.members).not.toContain(key);
    }
    expect(found?.resourceScheme).toBe("issues");
    expect(source.slice(0, found?.close)).toMatch(/\n {2}}\n$/);
  });

  it("finds a class that extends McpServer through a namespace, and none where no class does", () => {
    expect(readServerClass("a.ts", "import * as d from 'x';\nclass A extends d.McpServer { m() {} }")?.name).toBe("A");
    expect(readServerClass("a.ts", "// class A extends McpServer {\nclass B extends Other {}")).toBeUndefined();
  });

  it("refuses a file that does not parse, saying which and where", () => {
    expect(() => readServerClass("src/bad.ts", "class A extends McpServer { m() {")).toThrow(CliError);
    expect(() => readServerClass("src/bad.ts", "class A extends McpServer {\n  name = ;\n}")).toThrow(
      /^cannot parse src\/bad\.ts:2:10: /,
    );
  });

  it.each([
    ["export class A extends McpServer {}", "A", { name: "A", default: false }],
    ["export const A = class extends McpServer {};", "A", { name: "A", default: false }],
    ["export const A = class Inner extends McpServer {};", "Inner", { name: "Inner", default: false }],
    ["export default class extends McpServer {}", "", { name: "Server", default: true }],
    ["export default class A extends McpServer {}", "A", { name: "A", default: true }],
    ["class A extends McpServer {}\nexport { A as B };", "A", { name: "B", default: false }],
    ["const A = class extends McpServer {};\nexport { A };", "A", { name: "A", default: false }],
    ["class A extends McpServer {}\nexport default A;", "A", { name: "A", default: true }],
    ["class A extends McpServer {}\nserveStdio(new A());", "A", undefined],
    ["export function make() {\n  class A extends McpServer {}\n  return A;\n}", "A", undefined],
  ])("knows how %j exports its class", (source, name, exported) => {
    expect(readServerClass("a.ts", source)).toMatchObject({ name, exported });
  });

  it("takes a concrete class that extends an abstract one of the file, and refuses an abstract one alone", () => {
    const both = "abstract class Base extends McpServer {}\nexport class Shop extends Base {\n  m() {}\n}";
    expect(readServerClass("a.ts", both)).toMatchObject({ name: "Shop", members: new Set(["m"]) });
    expect(() => readServerClass("src/base.ts", "export abstract class Base extends McpServer {}")).toThrow(
      "class Base in src/base.ts is abstract, so a test cannot make one: say the file of a class that extends it with --file",
    );
  });
});

describe("ensureImport", () => {
  it("does not import again what an import type already has", () => {
    const source =
      'import type { Args } from "@toolsmith/decorators";\nimport { McpServer } from "@toolsmith/decorators";\n';
    expect(ensureImport(source, "@toolsmith/decorators", ["type Args", "tool"])).toBe(
      'import type { Args } from "@toolsmith/decorators";\nimport { McpServer, tool } from "@toolsmith/decorators";\n',
    );
    const onlyType = 'import type { Args } from "@toolsmith/decorators";\n';
    expect(ensureImport(onlyType, "@toolsmith/decorators", ["type Args"])).toBe(onlyType);
  });
});
