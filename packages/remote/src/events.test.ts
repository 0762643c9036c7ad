import { describe, expect, it } from "vitest";
import { EventSplitter, type StreamEvent } from "./events.js";

// The splitter of an event stream's bytes (events.ts), fed chunks by hand: what it makes of each line end and field,
// its bound on one event, and that its work stays linear in the bytes however small the chunks.

function split(chunks: Buffer[], limit = 1 << 20): { events: StreamEvent[]; splitter: EventSplitter; taken: boolean } {
  const events: StreamEvent[] = [];
  const splitter = new EventSplitter(limit, (event) => events.push(event));
  let taken = true;
  for (const chunk of chunks) taken &&= splitter.push(chunk);
  if (taken) splitter.end();
  return { events, splitter, taken };
}

/** `bytes` cut into chunks of `size` bytes (the last may be shorter). */
function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

const event = (fields: Partial<StreamEvent>): StreamEvent => ({
  type: undefined,
  data: undefined,
  id: undefined,
  retry: undefined,
  ...fields,
});

describe("an event stream's bytes split into events", () => {
  const stream = Buffer.from(
    "\uFEFF: a comment\nid: 1\nretry: 5\n\n" +
      'event: message\r\ndata: {"a":1}\r\ndata:second\r\n\r\n' +
      "data: lone CR\r\rid: x\0y\nretry: soon\ndata\n\n" +
      "data: é€😀\n\ndata: unended",
  );
  const expected = [
    event({ id: "1", retry: 5 }),
    event({ type: "message", data: '{"a":1}\nsecond' }),
    event({ data: "lone CR" }),
    event({ data: "" }),
    event({ data: "é€😀" }),
    event({ data: "unended" }),
  ];

  it.each([1, 2, 3, 7, 1000])(
    "in chunks of %i bytes: each line end, field and character as the spec reads it",
    (size) => {
      expect(split(chunked(stream, size)).events).toEqual(expected);
    },
  );
});

describe("an event stream's bound on one event", () => {
  const LIMIT = 1000;
  // One event whose lines hold `bytes` bytes in all (line ends not counted), then a small one.
  const stream = (bytes: number) => Buffer.from(`data: ${"x".repeat(bytes - 6 - 5)}\nid: 7\n\ndata: next\n\n`);

  it.each([1, 64, 5000])("an event of the limit passes, one byte more is refused (chunks of %i bytes)", (size) => {
    const fits = split(chunked(stream(LIMIT), size), LIMIT);
    expect(fits.taken).toBe(true);
    expect(fits.events.map((each) => each.data?.length)).toEqual([LIMIT - 11, 4]);
    const over = split(chunked(stream(LIMIT + 1), size), LIMIT);
    expect(over.taken).toBe(false);
    expect(over.events).toEqual([]);
  });

  it("counts each event on its own: many under the limit pass, however many bytes in all", () => {
    const many = Buffer.from(`data: ${"y".repeat(900)}\n\n`.repeat(100));
    const { events, taken } = split(chunked(many, 1), LIMIT);
    expect(taken).toBe(true);
    expect(events).toHaveLength(100);
  });

  it("holds a line not yet ended in a buffer never larger than the limit, however it grew", () => {
    const limit = 5000;
    const events: StreamEvent[] = [];
    const splitter = new EventSplitter(limit, (each) => events.push(each));
    for (const chunk of chunked(Buffer.from(`data: ${"w".repeat(limit - 6)}`), 1)) splitter.push(chunk);
    expect(splitter.capacity).toBeLessThanOrEqual(limit);
    expect(splitter.push(Buffer.from("\n\n"))).toBe(true);
    expect(events.map((each) => each.data?.length)).toEqual([limit - 6]);
  });

  it("counts an event's short lines together, and a line that never ends", () => {
    expect(split([Buffer.from("x\n".repeat(LIMIT + 1))], LIMIT).taken).toBe(false);
    expect(split(chunked(Buffer.from(`data: ${"z".repeat(LIMIT)}`), 1), LIMIT).taken).toBe(false);
  });
});

describe("an event stream a byte at a time", () => {
  it("a 2 MB event in 1-byte chunks: delivered whole, each byte worked on a bounded number of times", () => {
    const text = "é€😀".repeat(1000) + "0123456789abcdef".repeat(128 * 1024);
    const bytes = Buffer.from(`id: 1\ndata: ${text}\n\n`);
    expect(bytes.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    const whole = split([bytes], bytes.byteLength);
    const bytewise = split(chunked(bytes, 1), bytes.byteLength);
    expect(bytewise.events).toEqual([event({ id: "1", data: text })]);
    expect(whole.events).toEqual(bytewise.events);
    // Looked at once and decoded once; in small chunks also copied into the line buffer, and again as it doubles (at
    // most twice the line in all). A search of what is held on each chunk would be some million times the bytes.
    expect(whole.splitter.work).toBeLessThanOrEqual(2 * bytes.byteLength);
    expect(bytewise.splitter.work).toBeLessThanOrEqual(5 * bytes.byteLength);
  });
});
