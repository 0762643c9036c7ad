import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// A file swapped for a link to one outside the folder between the walk that listed it and the read: the read must
// see that it is no longer the file listed, and refuse the folder, never serve what the link points at.

// Run once the walk has looked at a path (set by the test).
const afterLook = vi.hoisted(() => ({ run: undefined as ((path: string) => void) | undefined }));

vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const lstatSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
    const stat = real.lstatSync(path, options);
    afterLook.run?.(String(path));
    return stat;
  }) as typeof real.lstatSync;
  return { ...real, lstatSync };
});

const { readSkill, SkillFolderError } = await import("./index.js");

const made: string[] = [];
afterEach(() => {
  afterLook.run = undefined;
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
});
