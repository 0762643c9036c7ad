export { MAX_ENTRIES, type ReadSkillOptions, readSkill, readSkills, SkillFolderError } from "./read-skill.js";
