// JSON.parse rounds numbers past 2^53, but a request id must be echoed exactly: read the id's own text off the line.

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function skipString(text: string, at: number): number {
  // `at` is just past the opening quote; returns the index just past the closing one.
  for (let index = at; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 92) index++;
    else if (char === 34) return index + 1;
  }
  return text.length;
}

function skipWhitespace(text: string, at: number): number {
  let index = at;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char !== 32 && char !== 9 && char !== 10 && char !== 13) break;
    index++;
  }
  return index;
}

/** The source text of the top-level member `key` of a JSON object, when it is a number. */
export function rawNumberMember(text: string, key: string): string | undefined {
  let index = skipWhitespace(text, 0);
  if (text[index] !== "{") return undefined;
  let depth = 0;
  let expectKey = false;
  for (; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = skipString(text, index + 1);
      if (depth === 1 && expectKey) {
        let name: unknown;
        try {
          name = JSON.parse(text.slice(index, end));
        } catch {
          return undefined;
        }
        const colon = skipWhitespace(text, end);
        const start = skipWhitespace(text, colon + 1);
        if (name === key) {
          let stop = start;
          while (stop < text.length && /[-+.eE0-9]/.test(text[stop] as string)) stop++;
          const raw = text.slice(start, stop);
          return NUMBER.test(raw) ? raw : undefined;
        }
        expectKey = false;
        index = start - 1;
        continue;
      }
      index = end - 1;
    } else if (char === "{" || char === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (char === "}" || char === "]") {
      depth--;
    } else if (char === "," && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

/** The JSON text an id is echoed as: exact for numbers JSON.parse could not hold. */
export function idText(id: unknown, line: string | undefined): string {
  if (typeof id === "string") return JSON.stringify(id);
  if (typeof id === "number" && Number.isFinite(id)) {
    if (Number.isSafeInteger(id) || line === undefined) return String(id);
    return rawNumberMember(line, "id") ?? String(id);
  }
  return "null";
}

// Requests in flight and listen streams are keyed by id, strings and numbers apart.
export function keyOf(id: string | number): string {
  return typeof id === "string" ? `s${id}` : `n${id}`;
}
