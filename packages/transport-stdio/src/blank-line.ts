/** True for a line holding nothing but JSON whitespace: skipped, not answered. */
export function isBlankLine(text: string): boolean {
  // Only these four are whitespace to JSON: U+2028, U+2029, NBSP and the BOM, which trim() also drops, are not.
  // A loop, not a regular expression: every line read passes here, and most fail at their first character.
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char !== 0x20 && char !== 0x09 && char !== 0x0d && char !== 0x0a) return false;
  }
  return true;
}
