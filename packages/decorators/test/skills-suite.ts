// @skill(path): a skill published from a method that returns its files (or readSkill's definition), with a guard
// that may name a method. Run in both decorator dialects (see dialect-suite.ts).
import type { RequestContext, SkillDefinition } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, skill } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { DIALECT } from "./dialect-suite.js";

const md = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n\n# ${name}\n`;

class Docs extends McpServer {
  name = "docs";
  version = "1";
  built = 0;

  @skill("git-workflow")
  gitWorkflow() {
    this.built++;
    return { "SKILL.md": md("git-workflow"), "references/commits.md": "Say why.\n" };
  }

  // As readSkill(…) returns it: a whole definition, served at the decorator's path.
  @skill("acme/billing/refunds", { guard: "isBilling" })
  refunds(): SkillDefinition {
    return { path: "refunds", files: { "SKILL.md": md("refunds") }, source: "/skills/refunds" };
  }

  isBilling(ctx: RequestContext) {
    return ctx.auth?.scopes.includes("billing") ?? false;
  }
}

describe(`@skill (${DIALECT})`, () => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`publishes the skill at its path, its method run once, its guard a method (${protocolVersion})`, async () => {
      const docs = new Docs();
      const billing = await createTestClient(docs, { protocolVersion, auth: { subject: "b", scopes: ["billing"] } });
      const other = await createTestClient(docs, { protocolVersion, auth: { subject: "o", scopes: [] } });
      const uris = async (client: typeof billing) =>
        ((await client.request("skills/list", {})).skills as { uri: string }[]).map((entry) => entry.uri);
      expect(await uris(billing)).toEqual(["skill://git-workflow/SKILL.md", "skill://acme/billing/refunds/SKILL.md"]);
      expect(await uris(other)).toEqual(["skill://git-workflow/SKILL.md"]);
      expect(docs.built).toBe(1);
      const read = await other.readResource("skill://git-workflow/references/commits.md");
      expect(read.contents[0]).toMatchObject({ text: "Say why.\n" });
    });
  }

  it("refuses a path whose last segment breaks the name rule when the class is defined", () => {
    expect(() => {
      class Bad extends McpServer {
        @skill("team/Bad_Name")
        bad() {
          return {};
        }
      }
      return Bad;
    }).toThrow(/@skill on (Bad\.)?bad: Skill "team\/Bad_Name": the last segment of its path, "Bad_Name", is its name/);
  });

  it("refuses a method that returns no files when the server is built", () => {
    class Empty extends McpServer {
      @skill("empty")
      empty() {
        return undefined as never;
      }
    }
    expect(() => new Empty().toServer()).toThrow(`@skill("empty") on empty: the method must return the skill's files`);
  });
});
