const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
// The longest spelling of the key "id" is "\u0069\u0064": 12 bytes. A longer key cannot be it.
const MAX_KEY_BYTES = 12;
/** Id text (as written, escapes and all) the scanner keeps; a longer id is answered with null. */
export const MAX_ID_BYTES = 4096;

// The text between a string's quotes, escapes decoded; undefined when it is not a valid JSON string body.
function decodeString(raw: Uint8Array): string | undefined {
  try {
    return JSON.parse(`"${Buffer.from(raw).toString("utf8")}"`) as string;
  } catch {
    return undefined;
  }
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Finds the top-level `"id"` of a JSON object streamed through it in chunks, without keeping the text:
 * an oversized line is dropped, but its request still gets a reply with the right id. Like JSON.parse, the last
 * "id" key counts; a number is kept as written, so an id past 2^53 is echoed exactly.
 */
export class TopLevelIdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expect: "key" | "colon" | "value" | "comma" = "key";
  #readingKey = false;
  #key = new Uint8Array(MAX_KEY_BYTES);
  #keyLength = 0;
  #keyIsId = false;
  #capturing = false;
  #value = new Uint8Array(64);
  #valueLength = 0;
  #valueIsString = false;
  #overflow = false;
  #sawObject = false;
  #hasIdKey = false;
  #idText = "null";
  #done = false;

  push(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length && !this.#done; at++) this.#byte(chunk[at] as number);
  }

  /** True for an object with no top-level "id" key: a notification, which gets no reply. */
  get isNotification(): boolean {
    return this.#sawObject && !this.#hasIdKey;
  }

  /** The id's JSON text, for `errorLine`: `null` when the object had none readable. */
  get idText(): string {
    return this.#idText;
  }

  #byte(b: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        if (this.#readingKey) {
          this.#finishKey();
        } else if (this.#capturing) {
          this.#finishValue();
        }
        return;
      }
      if (this.#readingKey) this.#keepKey(b);
      else if (this.#capturing) this.#keepValue(b);
      return;
    }
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expect === "key") {
          this.#readingKey = true;
          this.#keyLength = 0;
        } else if (this.#depth === 1 && this.#expect === "value" && this.#keyIsId) {
          this.#startValue(true);
        }
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (this.#depth === 0) {
          if (b === OPEN_BRACE) this.#sawObject = true;
          else this.#done = true;
        }
        if (this.#depth === 1) this.#expect = "comma";
        this.#depth++;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (this.#depth === 1 && this.#capturing) this.#finishValue();
        this.#depth--;
        if (this.#depth <= 0) this.#done = true;
        return;
      case COLON:
        if (this.#depth === 1) this.#expect = "value";
        return;
      case COMMA:
        if (this.#depth === 1) {
          if (this.#capturing) this.#finishValue();
          this.#expect = "key";
        }
        return;
      default:
        if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) {
          if (this.#capturing && !this.#valueIsString && this.#valueLength > 0) this.#finishValue();
          return;
        }
        if (this.#depth === 1 && this.#expect === "value" && this.#keyIsId) {
          this.#startValue(false);
          this.#expect = "comma";
        }
        if (this.#capturing) this.#keepValue(b);
    }
  }

  #keepKey(b: number): void {
    // Past MAX_KEY_BYTES only the count grows: the key is then known not to be "id".
    if (this.#keyLength < MAX_KEY_BYTES) this.#key[this.#keyLength] = b;
    this.#keyLength++;
  }

  #finishKey(): void {
    this.#readingKey = false;
    this.#expect = "colon";
    // Decoded, since "\u0069d" is the same key as "id".
    const key = this.#keyLength <= MAX_KEY_BYTES ? decodeString(this.#key.subarray(0, this.#keyLength)) : undefined;
    this.#keyIsId = key === "id";
    if (!this.#keyIsId) return;
    this.#hasIdKey = true;
    // A later "id" key replaces an earlier one; a value that is neither a string nor a number leaves null.
    this.#idText = "null";
  }

  #startValue(isString: boolean): void {
    this.#capturing = true;
    this.#valueIsString = isString;
    this.#overflow = false;
    this.#valueLength = 0;
  }

  #keepValue(b: number): void {
    if (this.#valueLength === MAX_ID_BYTES) {
      this.#overflow = true;
      return;
    }
    if (this.#valueLength === this.#value.length) {
      const grown = new Uint8Array(Math.min(MAX_ID_BYTES, this.#value.length * 4));
      grown.set(this.#value);
      this.#value = grown;
    }
    this.#value[this.#valueLength++] = b;
  }

  #finishValue(): void {
    this.#capturing = false;
    this.#expect = "comma";
    // An id longer than we keep is answered with null rather than with a truncated, wrong id.
    if (this.#overflow) return;
    const raw = this.#value.subarray(0, this.#valueLength);
    if (this.#valueIsString) {
      // An id we cannot read is answered with null; one we can, re-encoded as JSON.parse would read it.
      const id = decodeString(raw);
      if (id !== undefined) this.#idText = JSON.stringify(id);
      return;
    }
    const text = Buffer.from(raw).toString("latin1");
    if (NUMBER.test(text)) this.#idText = text;
  }
}
