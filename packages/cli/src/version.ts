import { readFileSync } from "node:fs";

/** This CLI's version, read from its package.json at run time so a release bump needs no code change. */
export const CLI_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
