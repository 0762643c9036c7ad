/**
 * Characters a terminal acts on rather than shows: C0 controls but tab (escape sequences start with ESC, and CR or a
 * newline can fake a line), DEL, C1 controls (0x9b alone is a CSI), and the bidirectional overrides that reorder
 * what a line seems to say.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it exists to find.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r" };

/**
 * `text` safe to write where a person reads it: what a server sent (a log message, a logger's name, an error's
 * body) can neither move the cursor, recolour or retitle the terminal, nor start a line of its own. Each unsafe
 * character is shown escaped (`\n`, `\r`, `\u001b`).
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (ch) => NAMED[ch] ?? `\\u${(ch.codePointAt(0) as number).toString(16).padStart(4, "0")}`);
}
