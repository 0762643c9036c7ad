import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createServer, DefinitionError } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { readSkill, readSkills, SkillFolderError } from "./index.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with these files (paths with `/`), returned with its path. */
function folder(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), "toolsmith-skills-"));
  made.push(root);
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, ...path.split("/"));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return root;
}

const md = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n\n# ${name}\n`;

/** The error `run` throws, which must be one of `kind`. */
function refusal(
  run: () => unknown,
  kind: typeof SkillFolderError | typeof DefinitionError = SkillFolderError,
): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("readSkill and readSkills", () => {
  it("read a folder's skills, nested ones too, and serve them", async () => {
    const root = folder({
      "pdf-processing/SKILL.md": md("pdf-processing"),
      "pdf-processing/templates/invoice.md": "Invoice\n",
      "pdf-processing/.DS_Store": "hidden",
      "pdf-processing/forms/SKILL.md": md("forms"),
      "git-workflow/SKILL.md": md("git-workflow"),
    });
    const skills = readSkills(root, { prefix: "acme" });
    expect(skills.map((skill) => skill.path)).toEqual([
      "acme/git-workflow",
      "acme/pdf-processing",
      "acme/pdf-processing/forms",
    ]);
    expect(Object.keys(skills[1]?.files ?? {})).toEqual(["SKILL.md", "forms/SKILL.md", "templates/invoice.md"]);
    const server = createServer({ name: "folders", version: "1.0.0" });
    for (const skill of skills) server.skill(skill);
    server.skill(readSkill(join(root, "git-workflow"), { path: "solo/git-workflow" }));
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    const listed = (await client.request("skills/list", {})).skills as { uri: string }[];
    expect(listed.map((skill) => skill.uri)).toEqual([
      "skill://acme/git-workflow/SKILL.md",
      "skill://acme/pdf-processing/SKILL.md",
      "skill://acme/pdf-processing/forms/SKILL.md",
      "skill://solo/git-workflow/SKILL.md",
    ]);
    const read = await client.readResource("skill://acme/pdf-processing/templates/invoice.md");
    expect(read.contents[0]).toMatchObject({ text: "Invoice\n", mimeType: "text/markdown" });
  });

  it("refuse a symbolic link, inside or out of the folder, naming it", () => {
    const outside = folder({ "secret.txt": "secret" });
    const root = folder({ "s/SKILL.md": md("s") });
    symlinkSync(join(outside, "secret.txt"), join(root, "s", "leak.txt"));
    expect(refusal(() => readSkill(join(root, "s")))).toBe(
      `${join(root, "s", "leak.txt")} is a symbolic link: a skill is served from the real files in its folder`,
    );
    const inner = folder({ "s/SKILL.md": md("s"), "s/a.md": "a" });
    symlinkSync(join(inner, "s", "a.md"), join(inner, "s", "b.md"));
    expect(refusal(() => readSkills(inner))).toContain("b.md is a symbolic link");
    const linkedDir = folder({ "s/SKILL.md": md("s") });
    symlinkSync(outside, join(linkedDir, "s", "refs"));
    expect(refusal(() => readSkill(join(linkedDir, "s")))).toContain("refs is a symbolic link");
  });

  it("refuse names a URI would encode, or that leave the folder, naming the file", () => {
    for (const name of ["a%2Fb.md", "a%2e%2e", "back\\slash.md", "sp ace.md", "per%cent.md"]) {
      const root = folder({ "s/SKILL.md": md("s"), [`s/${name}`]: "x" });
      const message = refusal(
        () => createServer({ name: "x", version: "1" }).skill(readSkill(join(root, "s"))),
        DefinitionError,
      );
      expect(message).toContain(join(root, "s"));
      expect(message).toContain("is not allowed");
    }
  });

  it("refuse a binary file unless asked, then serve it as bytes", async () => {
    const root = folder({ "s/SKILL.md": md("s"), "s/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]) });
    expect(refusal(() => readSkill(join(root, "s")))).toBe(
      `${join(root, "s", "logo.png")} is not UTF-8 text; pass { binary: true } to serve such files as bytes`,
    );
    const server = createServer({ name: "bin", version: "1" });
    server.skill(readSkill(join(root, "s"), { binary: true }));
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const read = await client.readResource("skill://s/logo.png");
    expect(read.contents[0]).toMatchObject({
      mimeType: "image/png",
      blob: btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47, 0, 1)),
    });
  });

  it("refuse a huge file before reading it, and a skill over 512 files", () => {
    const root = folder({ "s/SKILL.md": md("s") });
    const big = join(root, "s", "big.txt");
    // A sparse file: its size is what counts, and it is never read.
    writeFileSync(big, "");
    truncateSync(big, 17 * 1024 * 1024);
    expect(refusal(() => readSkill(join(root, "s")))).toContain(`${big}: the skill's files pass 16777216 bytes`);
    const many: Record<string, string> = { "s/SKILL.md": md("s") };
    for (let i = 0; i < 512; i++) many[`s/f${i}.md`] = "x";
    expect(refusal(() => readSkill(join(folder(many), "s")))).toContain("holds 513 files: a skill may hold 512");
  });

  it("refuse a folder of ten thousand files, and SKILL.md without frontmatter or with a bad name", () => {
    const wide: Record<string, string> = { "s/SKILL.md": md("s") };
    for (let i = 0; i < 10_000; i++) wide[`s/d${i % 100}/f${i}.md`] = "";
    const root = folder(wide);
    expect(refusal(() => readSkills(root))).toBe(
      `${root} holds more than 10000 files and folders; serve a smaller folder`,
    );
    const bare = folder({ "s/SKILL.md": "# just markdown\n" });
    const server = createServer({ name: "x", version: "1" });
    expect(refusal(() => server.skill(readSkill(join(bare, "s"))), DefinitionError)).toBe(
      `Skill "${join(bare, "s")}", SKILL.md: line 1: SKILL.md must begin with a --- line opening its YAML frontmatter`,
    );
    const wrong = folder({ "Bad_Name/SKILL.md": md("Bad_Name") });
    expect(refusal(() => server.skill(readSkill(join(wrong, "Bad_Name"))), DefinitionError)).toContain(
      "lowercase letters",
    );
    const missing = folder({ "s/README.md": "x" });
    expect(refusal(() => readSkill(join(missing, "s")))).toContain("SKILL.md does not exist");
  });
});
