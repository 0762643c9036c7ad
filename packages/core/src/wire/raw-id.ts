import { isPlainObject } from "./json-rpc.js";

// JSON.parse rounds numbers past 2^53, but a request id must be echoed exactly: read the id's own text off the line.
// With a key written twice, JSON.parse keeps the last: so does this, so the id echoed is the id the server read.

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

// Reports each `key` member of the objects at `depth` (1: the top-level object; 2: the objects of a top-level
// array), in order, with the index of the element it is in: its source text when a number, else undefined; and
// where its value starts.
function scanMembers(
  text: string,
  key: string,
  depth: 1 | 2,
  report: (element: number, raw: string | undefined, start: number) => void,
): void {
  let level = 0;
  let inObject = false;
  let expectKey = false;
  let element = 0;
  for (let index = skipWhitespace(text, 0); index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = skipString(text, index + 1);
      if (level === depth && inObject && expectKey) {
        let name: unknown;
        try {
          name = JSON.parse(text.slice(index, end));
        } catch {
          return;
        }
        const start = skipWhitespace(text, skipWhitespace(text, end) + 1);
        if (name === key) {
          let stop = start;
          while (stop < text.length && /[-+.eE0-9]/.test(text[stop] as string)) stop++;
          const raw = text.slice(start, stop);
          report(element, NUMBER.test(raw) ? raw : undefined, start);
        }
        expectKey = false;
        index = start - 1;
        continue;
      }
      index = end - 1;
    } else if (char === "{" || char === "[") {
      level++;
      if (level === depth) {
        inObject = char === "{";
        expectKey = inObject;
      }
    } else if (char === "}" || char === "]") {
      level--;
      if (level === 0) break;
    } else if (char === ",") {
      if (level === depth) expectKey = inObject;
      else if (level === depth - 1) element++;
    }
  }
}

/** The source text of the last top-level member `key` of a JSON object (the one JSON.parse keeps), if a number. */
export function rawNumberMember(text: string, key: string): string | undefined {
  if (text[skipWhitespace(text, 0)] !== "{") return undefined;
  let found: string | undefined;
  scanMembers(text, key, 1, (_element, raw) => {
    found = raw;
  });
  return found;
}

/** For a batch (a JSON array): each element's last top-level `"id"`, as its source text when a number. */
export function rawBatchIds(text: string): (string | undefined)[] {
  const ids: (string | undefined)[] = [];
  if (text[skipWhitespace(text, 0)] !== "[") return ids;
  scanMembers(text, "id", 2, (element, raw) => {
    ids[element] = raw;
  });
  return ids;
}

/**
 * The JSON text to echo `id` as, `id` being what JSON.parse read off `line`: a string or number as it came (a
 * number exactly as written, even past 2^53 or out of range), anything else `null`. Pass it to `errorLine`.
 */
export function idText(id: unknown, line?: string): string {
  if (typeof id === "string") return JSON.stringify(id);
  if (typeof id !== "number") return "null";
  if (Number.isSafeInteger(id)) return String(id);
  const raw = line === undefined ? undefined : rawNumberMember(line, "id");
  return raw ?? (Number.isFinite(id) ? String(id) : "null");
}

/** `idText` of a parsed message's id (`null` for what is no object, such as a batch), `line` being its text. */
export function messageIdText(message: unknown, line?: string): string {
  return isPlainObject(message) ? idText(message.id, line) : "null";
}

/** The source text of `params.<key>` (the last of each key, as JSON.parse keeps it), if a number. */
export function rawParamsNumber(text: string, key: string): string | undefined {
  let start: number | undefined;
  scanMembers(text, "params", 1, (_element, _raw, at) => {
    start = at;
  });
  return start === undefined ? undefined : rawNumberMember(text.slice(start), key);
}

/** A request id as a map key, strings and numbers apart. */
export function keyOf(id: string | number): string {
  return typeof id === "string" ? `s${id}` : `n${id}`;
}

/**
 * A request's key in flight: a safe integer or string as itself, any other number by the text it was written as
 * (`idText`), so two ids JSON.parse rounds to one double stay two requests.
 */
export function requestKey(id: string | number, text: string): string {
  return typeof id === "string" ? `s${id}` : Number.isSafeInteger(id) ? `n${id}` : `n${text}`;
}
