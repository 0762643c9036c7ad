import { re2Property } from "./unicode-properties.js";

// What a linear-time (RE2) engine cannot run in a JSON Schema `pattern` (ECMA-262, `u` flag), found by reading the
// pattern once, and the pattern rewritten where RE2 reads the same syntax differently. No engine is loaded here, so
// registration can refuse a pattern before any is: what passes here, RE2 compiles.

// ECMA-262's white space and line terminators (`\s`), which RE2's `\s` ([\t\n\f\r ]) lacks in part.
const SPACE =
  "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
// ECMA-262's `.` stops at every line terminator; RE2's only at \n.
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** The most a bounded repeat may count in RE2 (`a{1001}` is refused), nested repeats multiplied. */
export const MAX_REPEAT = 1000;
// RE2's bounds on a parsed pattern (re2js's Parser.MAX_SIZE and MAX_HEIGHT), kept under with room: a group nests in
// at most four of RE2's nodes (a capture, an alternation, a concatenation, a repeat).
const MAX_SIZE = 1_000_000;
const MAX_DEPTH = 200;
const TOO_LARGE = "a size over RE2's bound (about a million steps once repeats are counted out)";

/** What RE2 cannot run in a pattern, and what to write instead when it is not the usual advice. */
export interface Unsupported {
  what: string;
  fix?: string;
}

/**
 * What a linear-time engine cannot run in `pattern`, or undefined when it can. `flags`: a library RegExp's, of which
 * `i` changes what RE2 can run alike.
 */
export function unsupportedSyntax(pattern: string, flags = ""): Unsupported | undefined {
  return scan(pattern, false, flags.includes("i")).unsupported;
}

/**
 * `pattern` spelt so RE2 reads it as ECMA-262 does (call after `unsupportedSyntax`): `.` and `\s`/`\S`, property
 * names, surrogate pairs, `[\b]`, named groups (unnamed: no backreference can use them, and RE2 refuses a name
 * twice); `dotAll` (the `s` flag): `.` is left for RE2's DOTALL, which matches every character as ECMA-262's then does.
 */
export function ecmaForRe2(pattern: string, dotAll = false): string {
  return scan(pattern, dotAll, false).text;
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

// What a group has so far, for RE2's bounds: the largest product of repeat counts over a path into its items before
// the last, and into the last (which a quantifier applies to); its size as RE2 counts it, and its last item's.
interface Group {
  product: number;
  lastProduct: number;
  size: number;
  lastSize: number;
  capture: boolean;
}

const group = (capture: boolean): Group => ({ product: 1, lastProduct: 1, size: 0, lastSize: 0, capture });

function item(frame: Group, product: number, size: number): void {
  frame.product = Math.max(frame.product, frame.lastProduct);
  frame.lastProduct = product;
  frame.lastSize = size;
  frame.size += size;
}

// A quantifier on the frame's last item, as RE2 counts it: a repeat's count multiplies what it holds (`{0}` drops it).
function quantify(frame: Group, min: number, max: number | undefined): void {
  const count = max === 0 ? 0 : max === undefined ? Math.max(min, 1) : max;
  const size =
    max === undefined ? (min === 0 ? 2 : 1) + Math.max(min, 1) * frame.lastSize : max * frame.lastSize + max - min;
  frame.size += size - frame.lastSize;
  frame.lastSize = size;
  frame.lastProduct *= count;
}

function scan(pattern: string, dotAll: boolean, fold: boolean): { text: string; unsupported?: Unsupported } {
  let text = "";
  let inClass = false;
  const groups: Group[] = [group(false)];
  let frame = groups[0] as Group;
  const fail = (what: string, fix?: string) => ({ text, unsupported: fix === undefined ? { what } : { what, fix } });
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[at + 2] === "<")) {
        return fail(`a backreference (\\${next}…)`);
      }
      const end = pattern.indexOf("}", at);
      if ((next === "p" || next === "P") && pattern[at + 2] === "{" && end > 0) {
        const written = pattern.slice(at, end + 1);
        if (next === "P" && fold) {
          return fail(
            `${written} with the i flag, which a RegExp and RE2 read apart (/\\P{Lu}/iu matches "A")`,
            `write [^${written.replace("\\P", "\\p")}] or drop the i flag`,
          );
        }
        const property = re2Property(pattern.slice(at + 3, end));
        if ("lacks" in property) return fail(`${written}, ${property.lacks}`, property.fix);
        text += `\\${next}{${property.name}}`;
        at = end;
      } else if (
        next === "u" &&
        /^[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(pattern.slice(at + 2))
      ) {
        // A surrogate pair written as two escapes is one code point with the u flag; RE2 would read two.
        const high = Number.parseInt(pattern.slice(at + 2, at + 6), 16);
        const low = Number.parseInt(pattern.slice(at + 8, at + 12), 16);
        text += `\\x{${((high - 0xd800) * 0x400 + low - 0xdc00 + 0x10000).toString(16)}}`;
        at += 11;
      } else {
        if (next === "s") text += inClass ? SPACE : `[${SPACE}]`;
        else if (next === "S" && !inClass) text += `[^${SPACE}]`;
        else if (next === "b" && inClass) text += "\\x08";
        else text += char + next;
        at++;
      }
      if (!inClass) item(frame, 1, 1);
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
      item(frame, 1, 1);
      continue;
    }
    if (char === "(") {
      const kind = pattern.slice(at + 1, at + 4);
      if (kind[1] === "=" || kind[1] === "!" || kind === "?<=" || kind === "?<!") {
        return fail(`a lookaround ((${kind[1] === "<" ? kind : kind.slice(0, 2)}…)`);
      }
      if (groups.length > MAX_DEPTH) return fail(`groups nested over ${MAX_DEPTH} deep`);
      // A named group loses its name; a non-capturing one (`(?:`, `(?i:`) keeps its prefix.
      const named = kind.startsWith("?<");
      const prefixEnd = kind[0] !== "?" ? at : pattern.indexOf(named ? ">" : ":", at);
      frame = group(kind[0] !== "?" || named);
      groups.push(frame);
      text += named ? "(" : pattern.slice(at, prefixEnd + 1);
      at = prefixEnd;
      continue;
    }
    if (char === ")" && groups.length > 1) {
      const inner = groups.pop() as Group;
      frame = groups.at(-1) as Group;
      item(frame, Math.max(inner.product, inner.lastProduct), inner.size + (inner.capture ? 2 : 0));
      text += char;
      continue;
    }
    if (char === "|") {
      item(frame, 1, 0);
      frame.size += 1;
    } else if (char === "*" || char === "+" || char === "?") {
      // A lazy `?` after a quantifier changes no count.
      if (!"*+?}".includes(pattern[at - 1] ?? "") || char !== "?")
        quantify(frame, char === "+" ? 1 : 0, char === "?" ? 1 : undefined);
    } else if (char === "{") {
      const repeat = /^\{(\d+)(?:(,)(\d*))?\}/.exec(pattern.slice(at));
      if (repeat) {
        const min = Number(repeat[1]);
        const max = repeat[2] === undefined ? min : repeat[3] ? Number(repeat[3]) : undefined;
        if (min > MAX_REPEAT || (max ?? 0) > MAX_REPEAT) {
          return fail(`a repeat count over ${MAX_REPEAT} (${repeat[0]})`);
        }
        quantify(frame, min, max);
        if (frame.lastProduct > MAX_REPEAT) {
          return fail(`repeats nested to more than ${MAX_REPEAT} in all (…${repeat[0]} around a repeat)`);
        }
        if (frame.size > MAX_SIZE) return fail(TOO_LARGE);
        text += repeat[0];
        at += repeat[0].length - 1;
        continue;
      }
    } else {
      item(frame, 1, 1);
    }
    text += char === "." && !dotAll ? DOT : char;
  }
  let size = 0;
  for (const each of groups) size += each.size;
  if (size > MAX_SIZE) return fail(TOO_LARGE);
  return { text };
}
