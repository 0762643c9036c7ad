import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// A file swapped for a link to one outside the folder between the walk that listed it and the read: the read must
// see that it is no longer the file listed, and refuse the folder, never serve what the link points at.

// Run once the walk has looked at a path (set by the test).
const afterLook = vi.hoisted(() => ({ run: undefined as ((path: string) => void) | undefined }));
// Each path opened, in order.
const opened = vi.hoisted((): string[] => []);

vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const lstatSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
    const stat = real.lstatSync(path, options);
    afterLook.run?.(String(path));
    return stat;
  }) as typeof real.lstatSync;
  const openSync = ((path: fs.PathLike, flags: fs.OpenMode) => {
    opened.push(String(path));
    return real.openSync(path, flags);
  }) as typeof real.openSync;
  return { ...real, lstatSync, openSync };
});

const { readSkill, readSkills, SkillFolderError } = await import("./index.js");

const made: string[] = [];
afterEach(() => {
  afterLook.run = undefined;
  opened.length = 0;
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dir(): string {
  const path = fs.mkdtempSync(join(tmpdir(), "toolsmith-skills-swap-"));
  made.push(path);
  return path;
}

/** The message of the SkillFolderError `run` throws (what it would have served instead fails the test). */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillFolderError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("a skill folder changed while it is read", () => {
  it("refuses a file swapped for a link, or a folder swapped for a link, after the walk listed it", () => {
    const outside = dir();
    fs.writeFileSync(join(outside, "a.md"), "the secret outside");
    const root = dir();
    fs.writeFileSync(join(root, "SKILL.md"), "---\nname: s\ndescription: The s skill\n---\n");
    fs.mkdirSync(join(root, "refs"));
    fs.writeFileSync(join(root, "refs", "a.md"), "inside");
    const file = join(root, "refs", "a.md");
    afterLook.run = (path) => {
      if (path !== file) return;
      afterLook.run = undefined;
      fs.rmSync(file);
      fs.symlinkSync(join(outside, "a.md"), file);
    };
    expect(refusal(() => readSkill(root, { path: "s" }))).toBe(
      `${file} changed while the folder was read: read it again`,
    );

    fs.rmSync(file);
    fs.writeFileSync(file, "inside");
    const refs = join(root, "refs");
    afterLook.run = (path) => {
      if (path !== file) return;
      afterLook.run = undefined;
      fs.renameSync(refs, join(root, "old"));
      fs.symlinkSync(outside, refs);
    };
    expect(refusal(() => readSkill(root, { path: "s" }))).toBe(
      `${file} changed while the folder was read: read it again`,
    );
  });

  it("reads each file once, however many nested skills list it (not once per skill, each copy kept)", () => {
    const root = dir();
    let path = root;
    const md = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n`;
    for (let depth = 0; depth < 20; depth++) {
      path = join(path, `s${depth}`);
      fs.mkdirSync(path);
      fs.writeFileSync(join(path, "SKILL.md"), md(`s${depth}`));
    }
    const deepest = join(path, "big.bin");
    fs.writeFileSync(deepest, new Uint8Array(1024 * 1024).fill(1));
    const skills = readSkills(root);
    expect(skills).toHaveLength(20);
    expect(skills.every((skill) => Object.values(skill.files).some((bytes) => bytes.length === 1024 * 1024))).toBe(
      true,
    );
    expect(opened.filter((file) => file === deepest)).toEqual([deepest]);
  });
});
