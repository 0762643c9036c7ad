import type { RequestId } from "@toolsmith/core";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const MAX_CAPTURE = 256;

/**
 * Finds the top-level `"id"` of a JSON object streamed through it in chunks, without keeping the text:
 * an oversized line is dropped, but its request still gets a reply with the right id.
 */
export class TopLevelIdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expect: "key" | "colon" | "value" | "comma" = "key";
  #readingKey = false;
  #key: number[] = [];
  #capturing = false;
  #value: number[] = [];
  #valueIsString = false;
  #overflow = false;
  #sawObject = false;
  #hasIdKey = false;
  #id: RequestId | undefined;
  #done = false;

  push(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length && !this.#done; at++) this.#byte(chunk[at] as number);
  }

  /** True for an object with no top-level "id" key: a notification, which gets no reply. */
  get isNotification(): boolean {
    return this.#sawObject && !this.#hasIdKey;
  }

  /** The id when one was found, null when the object had none readable. */
  get id(): RequestId | null {
    return this.#id ?? null;
  }

  #byte(b: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        if (this.#readingKey) {
          this.#readingKey = false;
          this.#expect = "colon";
          if (this.#isIdKey()) this.#hasIdKey = true;
        } else if (this.#capturing) {
          this.#finishValue();
        }
        return;
      }
      if (this.#readingKey) this.#keep(this.#key, b);
      else if (this.#capturing) this.#keep(this.#value, b);
      return;
    }
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expect === "key") {
          this.#readingKey = true;
          this.#key = [];
        } else if (this.#depth === 1 && this.#expect === "value" && this.#isIdKey()) {
          this.#capturing = true;
          this.#valueIsString = true;
          this.#overflow = false;
          this.#value = [];
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
          if (this.#capturing && !this.#valueIsString && this.#value.length > 0) this.#finishValue();
          return;
        }
        if (this.#depth === 1 && this.#expect === "value" && this.#isIdKey()) {
          this.#capturing = true;
          this.#valueIsString = false;
          this.#overflow = false;
          this.#value = [];
          this.#expect = "comma";
        }
        if (this.#capturing) this.#keep(this.#value, b);
    }
  }

  #keep(into: number[], b: number): void {
    if (into.length < MAX_CAPTURE) into.push(b);
    else if (into === this.#value) this.#overflow = true;
  }

  #isIdKey(): boolean {
    return this.#key.length === 2 && this.#key[0] === 0x69 && this.#key[1] === 0x64;
  }

  #finishValue(): void {
    this.#capturing = false;
    this.#expect = "comma";
    const raw = Buffer.from(this.#value).toString("utf8");
    // An id longer than we keep is answered with null rather than with a truncated, wrong id.
    if (this.#id !== undefined || this.#overflow) return;
    if (this.#valueIsString) {
      try {
        this.#id = JSON.parse(`"${raw}"`) as string;
      } catch {
        // An id we cannot read is answered with null.
      }
    } else if (/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw)) {
      const id = Number(raw);
      if (Number.isFinite(id)) this.#id = id;
    }
  }
}
