// What a linear-time (RE2) engine cannot run in a JSON Schema `pattern` (ECMA-262, `u` flag), found by reading the
// pattern once, and the pattern rewritten where RE2 reads the same syntax differently. No engine is loaded here, so
// registration can refuse a pattern before any is.

// ECMA-262's white space and line terminators (`\s`), which RE2's `\s` ([\t\n\f\r ]) lacks in part.
const SPACE =
  "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
// ECMA-262's `.` stops at every line terminator; RE2's only at \n.
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** The most a bounded repeat may count in RE2 (`a{1001}` is refused). */
export const MAX_REPEAT = 1000;

/** Why a linear-time engine cannot run `pattern`, or undefined when it can (as far as syntax tells). */
export function unsupportedSyntax(pattern: string): string | undefined {
  return scan(pattern).unsupported;
}

/**
 * `pattern` with `.` and `\s`/`\S` spelt so RE2 reads them as ECMA-262 does (call after `unsupportedSyntax`);
 * `dotAll` (the `s` flag): `.` is left for RE2's DOTALL, which matches every character as ECMA-262's then does.
 */
export function ecmaForRe2(pattern: string, dotAll = false): string {
  return scan(pattern, dotAll).text;
}

/**
 * A repeat (`*`, `+`, `{…}`) in a pattern a RegExp searches for (not anchored at its start by `^` in every top-level
 * alternative, or `multiline`), or undefined. A backtracking engine tries such a pattern at every position of a
 * string, so even a string that matches can take time growing as a power of its length (`(\w+\s?)*$`: 7 s for 27
 * characters; `[a-z]+@`: 16 s for 100,000).
 */
export function searchedRepeat(pattern: string, multiline: boolean): string | undefined {
  let repeat: string | undefined;
  let anchored = pattern.startsWith("^");
  let depth = 0;
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    if (char === "\\") at++;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "|" && depth === 0) anchored &&= pattern[at + 1] === "^";
    else if (repeat === undefined && (char === "*" || char === "+")) repeat = pattern.slice(0, at + 1);
    else if (repeat === undefined && char === "{" && /^\{\d+(?:,\d*)?\}/.test(pattern.slice(at))) {
      repeat = pattern.slice(0, pattern.indexOf("}", at) + 1);
    }
  }
  if (repeat === undefined || (anchored && !multiline)) return undefined;
  return repeat.length > 40 ? `…${repeat.slice(-40)}` : repeat;
}

function scan(pattern: string, dotAll = false): { text: string; unsupported?: string } {
  let text = "";
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[at + 2] === "<")) {
        return { text, unsupported: `a backreference (\\${next}…)` };
      }
      if (next === "s") text += inClass ? SPACE : `[${SPACE}]`;
      else if (next === "S" && !inClass) text += `[^${SPACE}]`;
      else text += char + next;
      at++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      text += char;
      continue;
    }
    if (char === "[") {
      inClass = true;
      // A leading "]" or "^]" is the class's own character in neither dialect: ECMA-262 ends the class there.
      text += char;
      continue;
    }
    if (char === "(" && pattern[at + 1] === "?") {
      const kind = pattern.slice(at + 2, at + 4);
      if (kind[0] === "=" || kind[0] === "!" || kind === "<=" || kind === "<!") {
        return { text, unsupported: `a lookaround ((?${kind[0] === "<" ? kind : kind[0]}…)` };
      }
    }
    if (char === "{") {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(at));
      if (repeat && (Number(repeat[1]) > MAX_REPEAT || Number(repeat[2] || 0) > MAX_REPEAT)) {
        return { text, unsupported: `a repeat count over ${MAX_REPEAT} (${repeat[0]})` };
      }
    }
    text += char === "." && !dotAll ? DOT : char;
  }
  return { text };
}
