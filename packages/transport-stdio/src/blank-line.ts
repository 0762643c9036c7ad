// Only these four are whitespace to JSON: U+2028, U+2029, NBSP and the BOM, which trim() also drops, are not.
const JSON_WHITESPACE_ONLY = /^[ \t\r\n]*$/;

/** True for a line holding nothing but JSON whitespace: skipped, not answered. */
export function isBlankLine(text: string): boolean {
  return JSON_WHITESPACE_ONLY.test(text);
}
