import { fileURLToPath } from "node:url";
import type { Server, SkillDefinition } from "@toolsmith/core";
import { readSkills } from "@toolsmith/skills";
import { JSON_SCHEMA_2020_12 } from "./json-schema.js";

// The fixtures a Worker cannot serve, kept apart so the rest bundles for one (examples/worker): the skills, read from
// disk, and the tool whose input is raw JSON Schema, which Ajv compiles with `new Function` (workerd refuses it).

/** The skills the skills extension's scenarios (SEP-2640) read: a folder of SKILL.md folders, beside src/ and dist/. */
export const SKILLS_DIR = fileURLToPath(new URL("../skills", import.meta.url));

/** The skills under SKILLS_DIR, for `ConformanceServerOptions.skills`. */
export function skillsOnDisk(): SkillDefinition[] {
  return readSkills(SKILLS_DIR);
}

/** Register the json-schema-2020-12 scenario's tool on `server`. */
export function addJsonSchemaTool(server: Server): void {
  server.tool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    input: JSON_SCHEMA_2020_12,
    handler: (args: unknown) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  });
}
