import { describe, expect, it } from "vitest";
import { skillDigest } from "./skill-digest.js";

describe("skillDigest", () => {
  it("is WebCrypto's SHA-256 at every block boundary, as sha256:<64 lowercase hex>", async () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 100_003]) {
      const bytes = new Uint8Array(length).map((_, index) => (index * 31 + 7) & 255);
      const digest = skillDigest(bytes);
      const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      expect(digest).toBe(`sha256:${[...hash].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`);
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it("hashes a view's own bytes, not its whole buffer", () => {
    const buffer = new Uint8Array([9, 9, 1, 2, 3, 9]);
    expect(skillDigest(buffer.subarray(2, 5))).toBe(skillDigest(new Uint8Array([1, 2, 3])));
  });
});
