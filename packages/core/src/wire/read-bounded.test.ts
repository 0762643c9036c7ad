import { describe, expect, it } from "vitest";
import { readBounded } from "./read-bounded.js";

function streamOf(chunks: readonly string[], onCancel?: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
    cancel: onCancel,
  });
}

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));

describe("readBounded", () => {
  it("a null body is empty", async () => {
    expect(await readBounded(null, 10)).toEqual(new Uint8Array(0));
  });

  it("reads every chunk, in order, up to the bound exactly", async () => {
    expect(text(await readBounded(streamOf(["ab", "cd", "é"]), 6))).toBe("abcdé");
    expect(text(await readBounded(streamOf(["only"]), 4))).toBe("only");
    expect(text(await readBounded(streamOf([]), 0))).toBe("");
  });

  it("past the bound: undefined, and the stream is cancelled", async () => {
    let cancelled = false;
    const body = streamOf(["abc", "def", "ghi"], () => {
      cancelled = true;
    });
    expect(await readBounded(body, 5)).toBeUndefined();
    expect(cancelled).toBe(true);
  });

  it("a cancel that fails still answers undefined", async () => {
    const body = streamOf(["abcdef"], () => {
      throw new Error("cannot cancel");
    });
    expect(await readBounded(body, 3)).toBeUndefined();
  });
});
