import { describe, expect, it } from "vitest";
import { MAX_ID_BYTES, TopLevelIdScanner } from "./id-scanner.js";

// The id's JSON text found in `text` fed in chunks of `size` bytes (the whole text at once by default).
function scanText(text: string, size = Number.POSITIVE_INFINITY): string {
  const scanner = new TopLevelIdScanner();
  const bytes = Buffer.from(text);
  const step = Math.min(size, bytes.length || 1);
  for (let at = 0; at < bytes.length; at += step) scanner.push(bytes.subarray(at, at + step));
  return scanner.idText;
}

// Whether the scanner took the text for a notification (an object with no top-level "id" key).
function isNotification(text: string): boolean {
  const scanner = new TopLevelIdScanner();
  scanner.push(Buffer.from(text));
  return scanner.isNotification;
}

// The same id text whatever the chunking, down to one byte at a time.
function scanTextAnyhow(text: string): string {
  const whole = scanText(text);
  for (const size of [1, 2, 3, 7, 64]) expect(scanText(text, size)).toBe(whole);
  return whole;
}

// The id as the reply carries it, read back.
function scanAnyhow(text: string): string | number | null {
  return JSON.parse(scanTextAnyhow(text)) as string | number | null;
}

const huge = (n: number) => `{"blob":"${"q".repeat(n)}","list":[1,2,{"id":"inner"}],"nested":{"id":-1}}`;

describe("TopLevelIdScanner", () => {
  it("finds a numeric id", () => {
    expect(scanAnyhow('{"jsonrpc":"2.0","id":42,"method":"tools/call"}')).toBe(42);
    expect(scanAnyhow('{"id":0}')).toBe(0);
    expect(scanAnyhow('{"id":-17,"method":"x"}')).toBe(-17);
    expect(scanAnyhow('{"id":1.5e3}')).toBe(1500);
    expect(scanAnyhow('{"id":9007199254740991}')).toBe(9007199254740991);
  });

  it("finds an id surrounded by whitespace", () => {
    expect(scanAnyhow('{ "jsonrpc" : "2.0" ,\t"id" :\r\n 5 , "method":"m" }')).toBe(5);
    expect(scanAnyhow('  { "id" : "s" }')).toBe("s");
    expect(scanAnyhow('{"method":"m","id":12 }')).toBe(12);
  });

  it("finds a string id and decodes its escapes", () => {
    expect(scanAnyhow('{"jsonrpc":"2.0","id":"abc-123","method":"m"}')).toBe("abc-123");
    expect(scanAnyhow('{"id":"a\\"b\\\\c\\/d\\u00e9\\n\\t","method":"m"}')).toBe('a"b\\c/dé\n\t');
    expect(scanAnyhow('{"id":"\\\\"}')).toBe("\\");
    expect(scanAnyhow('{"id":"","method":"m"}')).toBe("");
  });

  it("keeps multi-byte characters of a string id whole", () => {
    expect(scanAnyhow('{"id":"😀 req € 中","method":"m"}')).toBe("😀 req € 中");
  });

  it("finds the id after a huge params value", () => {
    expect(scanAnyhow(`{"jsonrpc":"2.0","method":"m","params":${huge(200_000)},"id":"after"}`)).toBe("after");
    expect(scanAnyhow(`{"jsonrpc":"2.0","method":"m","params":${huge(200_000)},"id":77}`)).toBe(77);
  });

  it('ignores "id" keys nested inside params', () => {
    expect(scanAnyhow('{"params":{"id":1},"id":2}')).toBe(2);
    expect(scanAnyhow('{"params":{"arguments":{"id":"deep"}},"method":"m"}')).toBeNull();
    expect(scanAnyhow('{"params":[{"id":1},{"id":2}],"method":"m"}')).toBeNull();
    expect(scanAnyhow(`{"method":"m","params":${huge(1000)}}`)).toBeNull();
  });

  it('ignores "id" appearing as a value or inside strings', () => {
    expect(scanAnyhow('{"method":"id","params":{},"x":"\\"id\\":5"}')).toBeNull();
    expect(scanAnyhow('{"method":"id","id":3}')).toBe(3);
    expect(scanAnyhow('{"note":"{\\"id\\":4}","id":8}')).toBe(8);
  });

  it('does not take other keys that start or end with "id" for the id', () => {
    expect(scanAnyhow('{"idx":1,"uid":2,"i":3,"ids":[4]}')).toBeNull();
    expect(scanAnyhow('{"idx":1,"id":5}')).toBe(5);
  });

  it("reports null when there is no id", () => {
    expect(scanAnyhow('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toBeNull();
    expect(scanAnyhow("{}")).toBeNull();
    expect(scanAnyhow("")).toBeNull();
  });

  it("reports null for an id that is not a string or a number", () => {
    expect(scanAnyhow('{"id":null,"method":"m"}')).toBeNull();
    expect(scanAnyhow('{"id":true,"method":"m"}')).toBeNull();
    expect(scanAnyhow('{"id":{"n":1},"method":"m"}')).toBeNull();
    expect(scanAnyhow('{"id":[1],"method":"m"}')).toBeNull();
  });

  it("reports null for a line that is not an object", () => {
    expect(scanAnyhow('[{"jsonrpc":"2.0","id":1,"method":"m"}]')).toBeNull();
    expect(scanAnyhow('"id"')).toBeNull();
    expect(scanAnyhow("42")).toBeNull();
    expect(scanAnyhow('not json at all, "id": 5')).toBeNull();
  });

  it("stops at the end of the top-level object", () => {
    expect(scanAnyhow('{"method":"m"}{"id":6}')).toBeNull();
    expect(scanAnyhow('{"id":1}{"id":6}')).toBe(1);
    expect(scanAnyhow('{"id":1,"params":{}}{"id":6}')).toBe(1);
  });

  it("never reports a truncated string id", () => {
    // An id longer than the scanner keeps must be reported whole or not at all: a cut id could name another request.
    const long = `req-${"x".repeat(1000)}`;
    const found = scanAnyhow(`{"jsonrpc":"2.0","id":"${long}","method":"m"}`);
    const what = typeof found === "string" ? `a ${found.length}-character id` : String(found);
    expect(found === long || found === null, `reported ${what} for a ${long.length}-character id`).toBe(true);
  });

  it("decodes an id key written with escapes", () => {
    for (const key of ["\\u0069d", "i\\u0064", "\\u0069\\u0064"]) {
      expect(scanAnyhow(`{"jsonrpc":"2.0","${key}":11,"method":"m"}`), key).toBe(11);
      expect(isNotification(`{"jsonrpc":"2.0","${key}":11,"method":"m"}`), key).toBe(false);
    }
    expect(scanAnyhow('{"\\u0069d":"s","method":"m"}')).toBe("s");
    expect(scanAnyhow(`{"method":"m","params":${huge(10_000)},"\\u0069\\u0064":"late"}`)).toBe("late");
    expect(scanAnyhow('{"params":{"\\u0069d":1},"method":"m"}')).toBeNull();
  });

  it("does not take an escaped key that decodes to something else for the id", () => {
    expect(scanAnyhow('{"\\u0069dx":1,"\\u0049d":2,"\\\\id":3,"\\"id":4,"\\u0069":5}')).toBeNull();
    expect(isNotification('{"\\u0069dx":1,"method":"m"}')).toBe(true);
    expect(scanAnyhow('{"\\u0069\\u0064\\u0020":1}')).toBeNull();
    expect(scanAnyhow(`{"${"\\u0069".repeat(50)}":1,"id":2}`)).toBe(2);
    expect(scanAnyhow('{"\\uZZZZ":1,"id":3}')).toBe(3);
  });

  it("decodes an escaped string id under an escaped key", () => {
    expect(scanAnyhow('{"\\u0069d":"\\u0061\\"\\\\\\n\\ud83d\\ude00","method":"m"}')).toBe('a"\\\n😀');
    expect(scanAnyhow('{"id":"\\u2028\\u2029\\u0000","method":"m"}')).toBe("\u2028\u2029\u0000");
  });

  it("reads ids up to MAX_ID_BYTES of id text, and only beyond that reports null", () => {
    const fits = "i".repeat(MAX_ID_BYTES);
    expect(scanAnyhow(`{"id":"${fits}","method":"m"}`)).toBe(fits);
    expect(scanAnyhow(`{"id":"${fits}x","method":"m"}`)).toBeNull();
    const few = `req-${"é".repeat(300)}`;
    expect(scanAnyhow(`{"method":"m","id":"${few}"}`)).toBe(few);
    // The bound is on the text as written: 682 escaped characters are 4,092 bytes of id text, one more is over.
    const escaped = "\\u00e9".repeat(682);
    expect(scanAnyhow(`{"id":"${escaped}"}`)).toBe("é".repeat(682));
    expect(scanAnyhow(`{"id":"${escaped}\\u00e9"}`)).toBeNull();
    const digits = "1".repeat(300);
    expect(scanAnyhow(`{"id":0.${digits},"method":"m"}`)).toBe(Number(`0.${digits}`));
  });

  it("keeps a number id as written: past 2^53, negative, with an exponent, out of range", () => {
    for (const id of ["9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-1e308", "1.5E+3"]) {
      expect(scanTextAnyhow(`{"jsonrpc":"2.0","id":${id},"method":"m"}`), id).toBe(id);
      expect(scanTextAnyhow(`{"jsonrpc":"2.0","method":"m","id" : ${id} }`), id).toBe(id);
    }
    expect(scanTextAnyhow('{"id":1e999,"method":"m"}')).toBe("1e999");
    expect(scanTextAnyhow('{"id":01,"method":"m"}')).toBe("null");
    expect(scanTextAnyhow('{"id":"\\u0061\\/b","method":"m"}')).toBe('"a/b"');
  });

  it("takes the last of duplicate id keys, as JSON.parse does", () => {
    const cases = [
      '{"id":8,"id":-1e308,"method":"ping"}',
      '{"id":8,"method":"ping","\\u0069d":"last"}',
      '{"id":"first","id":9007199254740993}',
      '{"id":8,"id":null,"method":"ping"}',
      '{"id":8,"id":{"x":1},"method":"ping"}',
      '{"id":8,"id":[1],"method":"ping"}',
      '{"id":8,"id":true}',
      '{"id":{"x":1},"id":7}',
    ];
    for (const line of cases) {
      const expected = JSON.parse(line).id;
      const text = scanTextAnyhow(line);
      expect(JSON.parse(text), line).toEqual(
        typeof expected === "string" || typeof expected === "number" ? expected : null,
      );
    }
    expect(scanTextAnyhow('{"id":8,"id":-1e308,"method":"ping"}')).toBe("-1e308");
    expect(scanTextAnyhow('{"id":"first","id":9007199254740993}')).toBe("9007199254740993");
  });
});
