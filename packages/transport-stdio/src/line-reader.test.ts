import { describe, expect, it } from "vitest";
import { type LineEvent, LineReader } from "./line-reader.js";

// Feed every chunk, then end of input; return everything the reader reported.
function read(chunks: (string | Buffer)[], maxLineBytes = 1024, atEnd = true): LineEvent[] {
  const reader = new LineReader(maxLineBytes);
  const out: LineEvent[] = [];
  for (const chunk of chunks) reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk, out);
  if (atEnd) reader.end(out);
  return out;
}

function lines(...texts: string[]): LineEvent[] {
  return texts.map((text) => ({ kind: "line", text }));
}

// Split a buffer into pieces of `size` bytes, ignoring character boundaries.
function slices(buffer: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < buffer.length; at += size) out.push(buffer.subarray(at, at + size));
  return out;
}

describe("LineReader", () => {
  it("splits one chunk holding several lines", () => {
    expect(read(['{"a":1}\n{"b":2}\n{"c":3}\n'])).toEqual(lines('{"a":1}', '{"b":2}', '{"c":3}'));
  });

  it("drops a byte order mark at the start of a line, even split across chunks", () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const line = Buffer.concat([bom, Buffer.from('{"id":1}\r\n'), bom, Buffer.from('{"id":"\uFEFF"}\n')]);
    for (const size of [1, 2, 4, line.length]) {
      expect(read(slices(line, size))).toEqual(lines('{"id":1}', '{"id":"\uFEFF"}'));
    }
    expect(read([Buffer.concat([bom, Buffer.from("\r\n")])])).toEqual(lines(""));
  });

  it("joins a line split across chunks", () => {
    expect(read(['{"jsonrpc":', '"2.0","id"', ":1}\n{", '"id":2}\n'])).toEqual(
      lines('{"jsonrpc":"2.0","id":1}', '{"id":2}'),
    );
  });

  it("reports a line only once its newline arrives", () => {
    const reader = new LineReader(1024);
    const out: LineEvent[] = [];
    reader.push(Buffer.from('{"id":1'), out);
    expect(out).toEqual([]);
    reader.push(Buffer.from("}"), out);
    expect(out).toEqual([]);
    reader.push(Buffer.from("\n"), out);
    expect(out).toEqual(lines('{"id":1}'));
  });

  it("decodes multi-byte UTF-8 characters split across chunks at every byte", () => {
    const text = '{"text":"é€😀 ü 中文 🎉"}';
    const bytes = Buffer.from(`${text}\n${text}\n`);
    for (const size of [1, 2, 3, 5, 7]) {
      expect(read(slices(bytes, size))).toEqual(lines(text, text));
    }
  });

  it("keeps a four-byte character whose bytes arrive in separate chunks", () => {
    const emoji = Buffer.from("😀");
    expect(emoji.length).toBe(4);
    const chunks = [
      Buffer.from('"'),
      emoji.subarray(0, 1),
      emoji.subarray(1, 3),
      emoji.subarray(3),
      Buffer.from('"\n'),
    ];
    expect(read(chunks)).toEqual(lines('"😀"'));
  });

  it('drops the "\\r" of a "\\r\\n" line ending, also when "\\r" and "\\n" arrive apart', () => {
    expect(read(['{"a":1}\r\n{"b":2}\r\n'])).toEqual(lines('{"a":1}', '{"b":2}'));
    expect(read(['{"a":1}\r', '\n{"b":2}\r', "\n"])).toEqual(lines('{"a":1}', '{"b":2}'));
  });

  it('keeps a "\\r" that is not at the end of the line', () => {
    expect(read(['{"a":"x\ry"}\n'])).toEqual(lines('{"a":"x\ry"}'));
  });

  it("reports a last line without a newline at end()", () => {
    expect(read(['{"a":1}\n{"b":2}'])).toEqual(lines('{"a":1}', '{"b":2}'));
    expect(read(['{"a":1}\n{"b":2}'], 1024, false)).toEqual(lines('{"a":1}'));
    expect(read(['{"b"', ":2}\r"])).toEqual(lines('{"b":2}'));
  });

  it("reports nothing at end() when the input ended with a newline or was empty", () => {
    expect(read(['{"a":1}\n'])).toEqual(lines('{"a":1}'));
    expect(read([])).toEqual([]);
    expect(read([""])).toEqual([]);
  });

  it("reports blank lines as empty lines, in order", () => {
    expect(read(['{"a":1}\n\n\r\n{"b":2}\n', "\n"])).toEqual(lines('{"a":1}', "", "", '{"b":2}', ""));
  });

  it("keeps a line of exactly maxLineBytes bytes", () => {
    const text = `{"t":"${"x".repeat(10)}"}`;
    expect(read([`${text}\n`], Buffer.byteLength(text))).toEqual(lines(text));
  });

  it("drops a line over maxLineBytes and reports its byte count and id", () => {
    const text = `{"jsonrpc":"2.0","id":7,"method":"m","params":{"t":"${"x".repeat(100)}"}}`;
    expect(read([`${text}\n`], 64)).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(text), idText: "7", notification: false },
    ]);
    const longer = `{"t":"${"x".repeat(10)}"}`;
    expect(read([`${longer}\n`], Buffer.byteLength(longer) - 1)).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(longer), idText: "null", notification: true },
    ]);
  });

  it("counts bytes, not characters, against the limit", () => {
    const text = `{"id":"a","t":"${"€".repeat(30)}"}`;
    expect(text.length).toBeLessThan(64);
    expect(Buffer.byteLength(text)).toBeGreaterThan(64);
    expect(read([`${text}\n`], 64)).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(text), idText: '"a"', notification: false },
    ]);
  });

  it("finds the id of an oversized line fed in many small chunks, with the id after the payload", () => {
    const text = `{"jsonrpc":"2.0","method":"m","params":{"t":"${"y".repeat(5000)}","id":1},"id":"late \\"one\\""}`;
    const events = read(slices(Buffer.from(`${text}\n`), 97), 256);
    expect(events).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(text), idText: '"late \\"one\\""', notification: false },
    ]);
  });

  it("goes back to normal lines after an oversized one, in the same chunk and the next", () => {
    const big = `{"id":3,"t":"${"z".repeat(300)}"}`;
    const events = read([`{"id":1}\n${big}\n{"id":2}\n`, '{"id":4}\n'], 64);
    expect(events).toEqual([
      { kind: "line", text: '{"id":1}' },
      { kind: "oversized", bytes: Buffer.byteLength(big), idText: "3", notification: false },
      { kind: "line", text: '{"id":2}' },
      { kind: "line", text: '{"id":4}' },
    ]);
  });

  it("reports an oversized last line without a newline at end()", () => {
    const big = `{"id":9,"t":"${"z".repeat(300)}"}`;
    expect(read([big.slice(0, 100), big.slice(100)], 64)).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(big), idText: "9", notification: false },
    ]);
  });

  it("counts the bytes of an oversized line exactly across chunk boundaries", () => {
    const big = `{"id":11,"t":"${"é".repeat(1000)}"}`;
    const events = read(slices(Buffer.from(`${big}\r\n`), 33), 100);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: "oversized", idText: "11" });
    // The "\r" before "\n" is part of the line as received.
    const bytes = (events[0] as { bytes: number }).bytes;
    expect([Buffer.byteLength(big), Buffer.byteLength(big) + 1]).toContain(bytes);
  });
});
