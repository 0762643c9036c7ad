import { createMemoryEngine } from "@toolsmith/core/engine";
import { describe, expect, it } from "vitest";
import { createVault, MIN_SECRET_BYTES } from "./vault.js";

const SECRET = "s".repeat(MIN_SECRET_BYTES);

// What the engine holds, read past the vault: every key and value the memory engine keeps.
function recording() {
  const engine = createMemoryEngine();
  const written: string[] = [];
  const setValue = engine.setValue.bind(engine);
  engine.setValue = (key, value, options) => {
    written.push(key, value);
    return setValue(key, value, options);
  };
  return { engine, written };
}

describe("the vault", () => {
  it("keeps a record sealed under an HMAC of its id: neither the id nor the value is in the store", async () => {
    const { engine, written } = recording();
    const vault = createVault(engine, SECRET);
    await vault.put("code", "the-code-123", { token: "upstream-access-token-456" }, 60_000);
    expect(await vault.get("code", "the-code-123")).toEqual({ token: "upstream-access-token-456" });
    expect(written).toHaveLength(2);
    for (const text of written) {
      expect(text).not.toContain("the-code-123");
      expect(text).not.toContain("upstream-access-token-456");
    }
    expect(written[0]).toMatch(/^auth:code:[\w-]{43}$/);
  });

  it("take is single use: of ten takers at once exactly one gets the record", async () => {
    const vault = createVault(createMemoryEngine(), SECRET);
    await vault.put("code", "c", { n: 1 }, 60_000);
    const taken = await Promise.all(Array.from({ length: 10 }, () => vault.take("code", "c")));
    expect(taken.filter((record) => record !== undefined)).toEqual([{ n: 1 }]);
    expect(await vault.get("code", "c")).toBeUndefined();
  });

  it("ifAbsent stores once; delete and count answer what happened", async () => {
    const vault = createVault(createMemoryEngine(), SECRET);
    expect(await vault.put("key", "signing", 1, 60_000, { ifAbsent: true })).toBe(true);
    expect(await vault.put("key", "signing", 2, 60_000, { ifAbsent: true })).toBe(false);
    expect(await vault.get("key", "signing")).toBe(1);
    expect(await vault.delete("key", "signing")).toBe(true);
    expect(await vault.delete("key", "signing")).toBe(false);
    expect(await vault.count("register", "10.0.0.1", 60_000)).toBe(1);
    expect(await vault.count("register", "10.0.0.1", 60_000)).toBe(2);
    expect(await vault.count("register", "10.0.0.2", 60_000)).toBe(1);
  });

  it("the same id of another kind is another record", async () => {
    const vault = createVault(createMemoryEngine(), SECRET);
    await vault.put("code", "x", "a code", 60_000);
    expect(await vault.get("refresh", "x")).toBeUndefined();
  });

  it("a value sealed with another secret, tampered with, or moved under another key reads as absent", async () => {
    const { engine, written } = recording();
    const vault = createVault(engine, SECRET);
    await vault.put("code", "one", "first", 60_000);
    expect(await createVault(engine, "t".repeat(MIN_SECRET_BYTES)).get("code", "one")).toBeUndefined();
    await vault.put("code", "two", "second", 60_000);
    const [firstKey, firstValue, secondKey, secondValue] = written as [string, string, string, string];
    // The first record's sealed value under the second's key: refused, it names the key it was sealed for.
    engine.setValue(secondKey, firstValue, { ttlMs: 60_000 });
    expect(await vault.get("code", "two")).toBeUndefined();
    // One character of the ciphertext changed: the authentication tag refuses it.
    const at = secondValue.lastIndexOf(".") - 5;
    const flipped = `${secondValue.slice(0, at)}${secondValue[at] === "A" ? "B" : "A"}${secondValue.slice(at + 1)}`;
    engine.setValue(firstKey, flipped, { ttlMs: 60_000 });
    expect(await vault.get("code", "one")).toBeUndefined();
  });

  it("refuses a secret shorter than 32 bytes, saying how to make one", () => {
    expect(() => createVault(createMemoryEngine(), "short")).toThrow(/at least 32 bytes.*openssl rand/);
  });
});
