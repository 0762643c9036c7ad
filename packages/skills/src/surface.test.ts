import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["MAX_ENTRIES", "SkillFolderError", "readSkill", "readSkills"];
const TYPES = ["ReadSkillOptions"];

surfaceSuite("@toolsmith/skills", import.meta.url, { "index.ts": { values: VALUES, types: TYPES } });
