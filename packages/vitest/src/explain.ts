import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** The fields of a (serialized) error that the explanation reads and rewrites. */
export interface ErrorLike {
  name?: string;
  message?: string;
  stack?: string;
}

const EXPLAINED = "uses a TC39 decorator";

// Node's vm puts "<file>:<line>", then the offending line, above a SyntaxError's stack.
const HEADER = /^(?<file>\/.*|[A-Za-z]:\\.*):\d+\n(?<code>[^\n]*)\n/;

/** Where the first decorator is in a source file, as `file:line:column`, or the file alone if it cannot be read. */
function firstDecorator(file: string, root: string): string {
  const shown = relative(root, file) || file;
  try {
    const lines = readFileSync(file, "utf8").split("\n");
    const index = lines.findIndex((line) => /^\s*@[\w$(]/.test(line));
    return index === -1 ? shown : `${shown}:${index + 1}:${(lines[index]?.search(/@/) ?? 0) + 1}`;
  } catch {
    return shown;
  }
}

/**
 * Explain a module that failed to parse because vite left TC39 decorators in it: the message then says
 * which file and what to add. Returns whether the error was rewritten (in place).
 */
export function explainDecoratorSyntaxError(error: ErrorLike, root: string): boolean {
  if (error.name !== "SyntaxError" || error.message?.includes(EXPLAINED)) return false;
  const { file, code } = HEADER.exec(error.stack ?? "")?.groups ?? {};
  if (!file || !code?.trimStart().startsWith("@")) return false;
  const where = firstDecorator(file, root);
  error.message =
    `${error.message}: ${where} ${EXPLAINED}, which vite does not compile. ` +
    `Add the Toolsmith plugin to vitest.config.ts: import { toolsmith } from "@toolsmith/vitest" and set ` +
    `plugins: [toolsmith()]. (For legacy decorators instead, set "experimentalDecorators": true in the ` +
    `tsconfig.json that covers the file.)`;
  return true;
}
