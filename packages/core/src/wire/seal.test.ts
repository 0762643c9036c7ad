import { afterEach, describe, expect, it, vi } from "vitest";
import { createServer } from "../server/server.js";
import { fromBase64Url, Sealer, toBase64Url } from "./seal.js";

// The key is made on first use (start-up need not load webcrypto), yet a bad key is still refused at createServer.

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Sealer", () => {
  it("a state key under 16 bytes throws at createServer, as a string or as bytes", () => {
    const message = "the state key must be at least 16 bytes long";
    expect(() => createServer({ name: "s", version: "1", stateKey: "fifteen bytes!!" })).toThrow(
      new RangeError(message),
    );
    expect(() => createServer({ name: "s", version: "1", stateKey: new Uint8Array(15) })).toThrow(
      new RangeError(message),
    );
    expect(() => createServer({ name: "s", version: "1", stateKey: "sixteen bytes!!!" })).not.toThrow();
  });

  it("creating a server makes no key; the first seal makes it once", async () => {
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    const random = vi.spyOn(crypto, "getRandomValues");
    createServer({ name: "s", version: "1" });
    createServer({ name: "s", version: "1", stateKey: "sixteen bytes or more" });
    const sealer = new Sealer(undefined);
    expect(importKey).not.toHaveBeenCalled();
    expect(random).not.toHaveBeenCalled();
    const token = await sealer.seal("p", { n: 1 });
    expect(await sealer.open("p", token)).toEqual({ n: 1 });
    expect(await sealer.open("q", token)).toBeUndefined();
    expect(importKey).toHaveBeenCalledTimes(1);
  });

  it("a random key is the sealer's own; a given key seals alike in every sealer that has it", async () => {
    const token = await new Sealer(undefined).seal("p", 1);
    expect(await new Sealer(undefined).open("p", token)).toBeUndefined();
    const bytes = new Uint8Array(16).fill(7);
    const first = new Sealer(bytes);
    // The sealer copied the bytes when it was made: changing them later changes nothing.
    bytes.fill(0);
    expect(await new Sealer(new Uint8Array(16).fill(7)).open("p", await first.seal("p", 2))).toBe(2);
  });
});

describe("base64url", () => {
  it("is btoa's base64 with - and _ for + and /, unpadded, and reads back, at every length", () => {
    for (const length of [...Array.from({ length: 70 }, (_, n) => n), 12_345, 65_536]) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const expected = btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
      expect(toBase64Url(bytes)).toBe(expected);
      expect(fromBase64Url(expected)).toEqual(bytes);
    }
  });
});

describe("Sealer's encryption", () => {
  it("opens only what it encrypted, unaltered, with its key, its purpose and its context", async () => {
    const sealer = new Sealer("a test key of more than sixteen bytes");
    const token = await sealer.encrypt("p", "a secret", "d");
    expect(token).not.toContain("secret");
    expect(await sealer.decrypt("p", token, "d")).toBe("a secret");
    expect(await sealer.encrypt("p", "a secret", "d")).not.toBe(token);
    expect(await sealer.decrypt("q", token, "d")).toBeUndefined();
    expect(await sealer.decrypt("p", token, "e")).toBeUndefined();
    expect(await sealer.decrypt("p", `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`, "d")).toBeUndefined();
    expect(await new Sealer("another key of more than sixteen bytes").decrypt("p", token, "d")).toBeUndefined();
    expect(await sealer.decrypt("p", "short", "d")).toBeUndefined();
    expect(await sealer.mac("p", "a secret")).toBe(await sealer.mac("p", "a secret"));
    expect(await sealer.mac("p", "a secret")).not.toBe(await sealer.mac("q", "a secret"));
  });
});
