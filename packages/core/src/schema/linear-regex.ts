import { RE2JS } from "re2js";
import { ecmaForRe2, unsupportedSyntax } from "./pattern-syntax.js";

// A JSON Schema `pattern` run by RE2 (re2js, pure JavaScript): time linear in the string's length whatever the
// pattern, so no client value can stall the process on an author's backtracking pattern.

/** A pattern compiled for a linear-time engine: `test` searches the text as `RegExp.prototype.test` does. */
export interface LinearPattern {
  readonly source: string;
  test(text: string): boolean;
}

/** Why a pattern is refused: what to change, for a DefinitionError. */
export class PatternError extends Error {}

const ADVICE =
  "patterns are run by a linear-time (RE2) engine, so that no client value can stall the server; rewrite it without lookarounds and backreferences, and with repeat counts up to 1000";

/**
 * Compile a JSON Schema `pattern` (ECMA-262 syntax, `u` flag) for RE2; throws a PatternError saying why not.
 * `flags`: a RegExp's, of which `i`, `m` and `s` change what matches (a library's pattern: `/^abc$/i`).
 */
export function linearPattern(source: string, flags = ""): LinearPattern {
  const unsupported = unsupportedSyntax(source, flags);
  if (unsupported !== undefined) {
    throw new PatternError(`pattern ${JSON.stringify(source)} uses ${unsupported.what}: ${unsupported.fix ?? ADVICE}`);
  }
  let compiled: RE2JS;
  try {
    const dotAll = flags.includes("s");
    const options =
      (flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0) |
      (flags.includes("m") ? RE2JS.MULTILINE : 0) |
      (dotAll ? RE2JS.DOTALL : 0);
    compiled = RE2JS.compile(RE2JS.translateRegExp(ecmaForRe2(source, dotAll)), options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PatternError(`pattern ${JSON.stringify(source)} cannot be compiled (${reason}): ${ADVICE}`);
  }
  return { source, test: (text) => compiled.test(text) };
}
