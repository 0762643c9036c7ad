import type { ValidationIssue } from "./compiled-schema.js";
import { unrecognizedKey } from "./standard-schema.js";

// Validation issues as a client is told them: the first few, one line each.

/** How many validation issues an answer lists; a value wrong in a million places is told of the first ones. */
export const LISTED_ISSUES = 20;

/** The first LISTED_ISSUES of `issues`, then one that counts the rest. */
export function listIssues<T>(issues: readonly T[], toIssue: (issue: T) => ValidationIssue): ValidationIssue[] {
  const listed = issues.slice(0, LISTED_ISSUES).map(toIssue);
  const more = issues.length - LISTED_ISSUES;
  if (more > 0) listed.push({ path: "…", message: `and ${more} more issue${more === 1 ? "" : "s"}` });
  return listed;
}

/** An issue as zod (v3 or v4) reports it. */
export type ZodIssue = { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly unknown[] };

/** zod's issues, its unrecognized keys told one per line as every library's are (`unrecognized key "x"`). */
export function eachKey<T extends ZodIssue>(issues: readonly T[]): readonly T[] {
  if (!issues.some((issue) => issue.code === "unrecognized_keys" && Array.isArray(issue.keys))) return issues;
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys" && Array.isArray(issue.keys)
      ? issue.keys.map((key) => ({ ...issue, message: unrecognizedKey(key) }))
      : [issue],
  );
}

/** Turn validation issues into one line per field, for a model or a person to read. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `- ${issue.path}: ${issue.message}`).join("\n");
}
