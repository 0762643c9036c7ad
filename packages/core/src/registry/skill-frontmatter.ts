// A SKILL.md's YAML frontmatter, read as JSON. The skills extension sends it verbatim and hosts re-read the file with
// a YAML parser and compare field by field, so only a subset with one reading is accepted: block mappings and
// sequences, quoted and plain scalars (YAML 1.2 core types, nothing a YAML 1.1 parser reads differently), literal
// and folded block scalars, one-line flow sequences. Anything else is refused with its line, to be written plainly.

/** Why a frontmatter was refused, with the line of the file (from 1) where known. */
export class FrontmatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

/** A SKILL.md split: its frontmatter's YAML lines (numbered in the file) and the markdown after it. */
export interface SplitMarkdown {
  readonly yaml: readonly string[];
  /** The file line of `yaml[0]`. */
  readonly first: number;
}

const MAX_DEPTH = 8;
const KEY = /^([A-Za-z0-9_][A-Za-z0-9_./-]*|"[^"\\]*"|'[^']*'):(?:[ ]+(.*))?$/;
// Plain scalars a YAML 1.1 parser would read as something else than YAML 1.2 does, or as a date: refused unquoted.
const AMBIGUOUS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;
const NUMBERISH = [
  /^[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?0[xob]/i,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/,
  /^[-+]?\.(?:inf|nan)$/i,
];
const INT = /^-?(?:0|[1-9][0-9]*)$/;
const FLOAT = /^-?(?:0|[1-9][0-9]*)\.[0-9]+$/;

/** Splits `markdown` at its frontmatter: `---` as the first line (a BOM and CRLF line ends allowed), to a `---` line. */
export function splitFrontmatter(markdown: string): SplitMarkdown {
  const text = (markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown).replaceAll("\r\n", "\n");
  const lines = text.split("\n");
  if (lines[0]?.trimEnd() !== "---")
    throw new FrontmatterError("SKILL.md must begin with a --- line opening its YAML frontmatter", 1);
  const close = lines.findIndex((line, index) => index > 0 && /^---[ \t]*$/.test(line));
  if (close < 0) throw new FrontmatterError("the frontmatter has no closing --- line");
  return { yaml: lines.slice(1, close), first: 2 };
}

/** The frontmatter of `markdown` as a JSON object. */
export function parseFrontmatter(markdown: string): Record<string, unknown> {
  const { yaml, first } = splitFrontmatter(markdown);
  const reader = new Reader(yaml, first);
  const value = reader.block(0, 0);
  reader.end();
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new FrontmatterError("the frontmatter must be a mapping of fields", first);
  return value as Record<string, unknown>;
}

class Reader {
  #at = 0;

  constructor(
    readonly lines: readonly string[],
    readonly first: number,
  ) {}

  #fail(message: string, index = this.#at): never {
    throw new FrontmatterError(message, this.first + index);
  }

  // The next line with content, skipping blank and comment lines; its indent.
  #next(): { text: string; indent: number } | undefined {
    while (this.#at < this.lines.length) {
      const line = this.lines[this.#at] as string;
      const body = line.trimStart();
      if (body === "" || body.startsWith("#")) {
        this.#at++;
        continue;
      }
      const indent = line.length - body.length;
      if (line.slice(0, indent).includes("\t")) this.#fail("indentation must be spaces, not tabs");
      return { text: body.trimEnd(), indent };
    }
    return undefined;
  }

  end(): void {
    if (this.#next() !== undefined) this.#fail("unexpected indentation or content");
  }

  /** A block node at exactly `indent` (a mapping or a sequence); null when nothing is there. */
  block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) this.#fail(`fields nest deeper than ${MAX_DEPTH} levels`);
    const next = this.#next();
    if (next === undefined || next.indent < indent) return null;
    if (next.indent > indent && depth > 0) this.#fail("unexpected indentation");
    if (next.text === "-" || next.text.startsWith("- ")) return this.#sequence(next.indent, depth);
    return this.#mapping(next.indent, depth);
  }

  #mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let next = this.#next(); next !== undefined && next.indent >= indent; next = this.#next()) {
      if (next.indent > indent) this.#fail("unexpected indentation");
      const match = KEY.exec(next.text);
      if (!match) this.#fail(`expected "field: value", not ${JSON.stringify(next.text)}`);
      const key = unquoteKey(match[1] as string);
      if (Object.hasOwn(out, key)) this.#fail(`the field "${key}" is given twice`);
      const rest = match[2]?.trim() ?? "";
      this.#at++;
      let value: unknown;
      if (rest === "" || rest.startsWith("#")) {
        const child = this.#next();
        value = child !== undefined && child.indent > indent ? this.block(child.indent, depth + 1) : null;
        // A sequence may sit at its key's indent.
        if (child !== undefined && child.indent === indent && (child.text === "-" || child.text.startsWith("- "))) {
          value = this.#sequence(indent, depth + 1);
        }
      } else if (/^[|>]/.test(rest)) value = this.#blockScalar(rest, indent);
      else value = this.#inline(rest);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  #sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    for (let next = this.#next(); next !== undefined && next.indent === indent; next = this.#next()) {
      if (next.text !== "-" && !next.text.startsWith("- ")) break;
      const rest = next.text.slice(1).trim();
      this.#at++;
      if (rest === "") {
        const child = this.#next();
        out.push(child !== undefined && child.indent > indent ? this.block(child.indent, depth + 1) : null);
      } else if (KEY.test(rest))
        this.#fail("a mapping inside a sequence item is not supported here: write it as fields");
      else if (/^[|>]/.test(rest)) out.push(this.#blockScalar(rest, indent));
      else out.push(this.#inline(rest));
    }
    return out;
  }

  // A literal (|) or folded (>) block scalar after a key at `indent`, with its chomping (-, +, or clip).
  #blockScalar(header: string, indent: number): string {
    const match = /^([|>])([-+]?)[ ]*(?:#.*)?$/.exec(header);
    if (!match)
      this.#fail(
        `block scalar header ${JSON.stringify(header)} is not supported: use | or >, with - or +`,
        this.#at - 1,
      );
    const lines: string[] = [];
    let inner: number | undefined;
    while (this.#at < this.lines.length) {
      const line = this.lines[this.#at] as string;
      if (line.trim() === "") {
        lines.push("");
        this.#at++;
        continue;
      }
      const own = line.length - line.trimStart().length;
      if (own <= indent) break;
      inner ??= own;
      if (own < inner) this.#fail("a block scalar's lines must keep its first line's indentation");
      if (line.slice(0, inner).includes("\t")) this.#fail("indentation must be spaces, not tabs");
      if (match[1] === ">" && own > inner)
        this.#fail("a folded block scalar with more-indented lines is not supported: use |");
      lines.push(line.slice(inner));
      this.#at++;
    }
    let trailing = 0;
    while (trailing < lines.length && lines[lines.length - 1 - trailing] === "") trailing++;
    const content = lines.slice(0, lines.length - trailing);
    let text = match[1] === "|" ? content.join("\n") : fold(content);
    if (content.length > 0) {
      if (match[2] === "+") text += "\n".repeat(trailing + 1);
      else if (match[2] === "") text += "\n";
    }
    return text;
  }

  // A value on its key's line: quoted, a one-line flow sequence, or plain.
  #inline(text: string): unknown {
    if (text.startsWith('"') || text.startsWith("'")) {
      const { value, end } = quoted(text, (message) => this.#fail(message, this.#at - 1));
      const after = text.slice(end).trim();
      if (after !== "" && !after.startsWith("#"))
        this.#fail(`unexpected text after a quoted value: ${after}`, this.#at - 1);
      return value;
    }
    if (text.startsWith("[")) return this.#flow(text);
    if (text.startsWith("{")) {
      if (/^\{\s*\}\s*(?:#.*)?$/.test(text)) return {};
      this.#fail("a flow mapping ({…}) is not supported: write its fields on their own lines", this.#at - 1);
    }
    return this.#plain(stripComment(text));
  }

  #flow(text: string): unknown[] {
    const close = text.lastIndexOf("]");
    const after = close < 0 ? "" : text.slice(close + 1).trim();
    if (close < 0 || (after !== "" && !after.startsWith("#")))
      this.#fail("a flow sequence must end on its line with ]", this.#at - 1);
    const inner = text.slice(1, close).trim();
    if (inner === "") return [];
    const items: unknown[] = [];
    let rest = inner;
    while (rest !== "") {
      if (rest.startsWith('"') || rest.startsWith("'")) {
        const { value, end } = quoted(rest, (message) => this.#fail(message, this.#at - 1));
        items.push(value);
        rest = rest.slice(end).trim();
      } else {
        const comma = rest.indexOf(",");
        const item = (comma < 0 ? rest : rest.slice(0, comma)).trim();
        if (/[[\]{}#]/.test(item) || item === "")
          this.#fail(`flow sequence item ${JSON.stringify(item)} is not supported`, this.#at - 1);
        items.push(this.#plain(item));
        rest = comma < 0 ? "" : rest.slice(comma);
      }
      if (rest.startsWith(",")) rest = rest.slice(1).trim();
      else if (rest !== "") this.#fail("flow sequence items must be separated by commas", this.#at - 1);
    }
    return items;
  }

  #plain(text: string): unknown {
    const line = this.#at - 1;
    if (text === "" || text === "~" || text === "null") return null;
    if (text === "true") return true;
    if (text === "false") return false;
    if (INT.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
    if (FLOAT.test(text)) return Number(text);
    if (AMBIGUOUS.test(text) || NUMBERISH.some((pattern) => pattern.test(text))) {
      this.#fail(`${JSON.stringify(text)} reads differently in YAML parsers: quote it`, line);
    }
    if (/^[&*!%@`|>,?:-](?:\s|$)|^[&*!%@`]/.test(text))
      this.#fail(`a value may not begin with ${JSON.stringify(text[0])}: quote it`, line);
    if (text.includes(": ") || text.endsWith(":")) this.#fail(`${JSON.stringify(text)} holds ": ": quote it`, line);
    // A multi-line plain value continues on more-indented lines: refused (the next line then fails as unexpected).
    return text;
  }
}

function unquoteKey(key: string): string {
  return key.startsWith('"') || key.startsWith("'") ? key.slice(1, -1) : key;
}

// A plain value up to a comment (" #").
function stripComment(text: string): string {
  const hash = text.search(/\s#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
  " ": " ",
};

// A quoted scalar at the start of `text`: its value, and where it ended.
function quoted(text: string, fail: (message: string) => never): { value: string; end: number } {
  const quote = text[0];
  let value = "";
  for (let at = 1; at < text.length; at++) {
    const char = text[at] as string;
    if (quote === "'") {
      if (char !== "'") value += char;
      else if (text[at + 1] === "'") {
        value += "'";
        at++;
      } else return { value, end: at + 1 };
    } else if (char === '"') return { value, end: at + 1 };
    else if (char === "\\") {
      const code = text[at + 1] ?? "";
      if (code === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
        value += String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16));
        at += 5;
      } else if (Object.hasOwn(ESCAPES, code)) {
        value += ESCAPES[code];
        at++;
      } else fail(`the escape \\${code} is not supported`);
    } else value += char;
  }
  return fail("a quoted value must close on its own line");
}

// Folded block scalar lines: single line breaks become spaces, each blank line a line break.
function fold(lines: readonly string[]): string {
  let text = "";
  let blanks = 0;
  for (const [index, line] of lines.entries()) {
    if (line === "") {
      blanks++;
      continue;
    }
    if (index > 0) text += blanks > 0 ? "\n".repeat(blanks) : " ";
    blanks = 0;
    text += line;
  }
  return text;
}
