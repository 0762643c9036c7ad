// The @example blocks of @toolsmith/skills: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import type { Server } from "@toolsmith/core";
import { readSkill, readSkills } from "@toolsmith/skills";

export function one(server: Server): void {
  //#region readSkill
  server.skill(readSkill("./skills/git-workflow"));
  //#endregion readSkill
}

export function all(server: Server): void {
  //#region readSkills
  for (const skill of readSkills("./skills")) server.skill(skill);
  //#endregion readSkills
}
