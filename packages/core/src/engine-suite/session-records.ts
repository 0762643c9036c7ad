import { describe, expect, it } from "vitest";
import type { EngineLifecycle, RecordStore, SessionStore } from "../engine/engine.js";
import { storeScopePrefix } from "../engine/engine.js";
import { eventually, type MakeEngines, openerOf, ROOMY, recordOf, TEST_TIMEOUT_MS } from "./helpers.js";

type SessionRecords = EngineLifecycle & SessionStore & RecordStore;

/** The keys under a session's store scope, as `engine` lists them. */
async function keysOf(engine: SessionRecords, id: string): Promise<string[]> {
  return (await engine.listRecords(storeScopePrefix("x", id), { limit: 1000 })).map((record) => record.key);
}

/** Every engine's keys under the scope are gone. */
async function goneEverywhere(engines: readonly SessionRecords[], id: string): Promise<boolean> {
  for (const engine of engines) if ((await keysOf(engine, id)).length > 0) return false;
  return true;
}

/**
 * What an engine that keeps both sessions and records promises of a session's store (`writeRecord` with `session`):
 * records kept only while the session lives, whichever process writes them, and deleted by the engine as the session
 * ends (deleted, or unused past its idle time), however many there are.
 */
export function sessionRecordsSuite(name: string, make: MakeEngines<SessionRecords>): void {
  describe(`session records suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open } = openerOf(make);

    it("keeps a live session's records for every process, and deletes them as it ends, and no one else's", async () => {
      const engines = await open();
      const [first] = engines as [SessionRecords];
      const last = engines.at(-1) as SessionRecords;
      // Ids whose scopes would run into one another if written raw, and one its encoding changes.
      const [ended, kept] = [recordOf({ id: `a é/${crypto.randomUUID()}` }), recordOf()];
      for (const record of [ended, kept]) expect(await first.createSession(record, ROOMY)).toBe("created");
      const scope = storeScopePrefix("x", ended.id);
      expect(await first.writeRecord(`${scope}one`, "1", { session: ended.id })).toBe(1);
      expect(await last.writeRecord(`${scope}two`, "2", { session: ended.id, ttlMs: 600_000 })).toBe(1);
      expect(await last.writeRecord(`${scope}one`, "1b", { session: ended.id, ifVersion: 1 })).toBe(2);
      await first.writeRecord(`${storeScopePrefix("x", kept.id)}k`, "kept", { session: kept.id });
      await first.writeRecord(`${storeScopePrefix("s")}k`, "server's");
      for (const engine of engines) expect(await keysOf(engine, ended.id)).toEqual([`${scope}one`, `${scope}two`]);
      expect(await last.deleteSession(ended.id)).toBe(true);
      await eventually(() => goneEverywhere(engines, ended.id), "the ended session's records to be gone");
      for (const engine of engines) {
        expect(await keysOf(engine, kept.id)).toHaveLength(1);
        expect(await engine.readRecord(`${storeScopePrefix("s")}k`)).toEqual({ value: "server's", version: 1 });
      }
    });

    it("refuses a record of a session that ended or never was, writing nothing, and one outside its scope", async () => {
      const [engine] = (await open()) as [SessionRecords];
      const record = recordOf();
      const scope = storeScopePrefix("x", record.id);
      const write = (key: string, session: string) => async () => engine.writeRecord(key, "v", { session });
      await expect(write(`${scope}k`, record.id)).rejects.toThrow(/has ended \(or never was\)/);
      await engine.createSession(record, ROOMY);
      await expect(write(`${storeScopePrefix("x", "other")}k`, record.id)).rejects.toThrow(RangeError);
      await expect(write(`${storeScopePrefix("s")}k`, record.id)).rejects.toThrow(RangeError);
      expect(await engine.writeRecord(`${scope}k`, "v", { session: record.id })).toBe(1);
      await engine.deleteSession(record.id);
      await expect(write(`${scope}late`, record.id)).rejects.toThrow(/has ended \(or never was\)/);
      expect(await engine.listRecords("d:", { limit: 10 })).toEqual([]);
    });

    it("swaps a session's record in only while it lives (a delete needs no live session), and one in its scope", async () => {
      const engines = await open();
      const [first] = engines as [SessionRecords];
      const last = engines.at(-1) as SessionRecords;
      const record = recordOf();
      const scope = storeScopePrefix("x", record.id);
      const swapIn = (engine: SessionRecords, key: string, expected?: { value: string; version: number }) => async () =>
        engine.swapRecord(key, expected, "v", { session: record.id });
      await expect(swapIn(first, `${scope}k`)).rejects.toThrow(/has ended \(or never was\)/);
      await first.createSession(record, ROOMY);
      await expect(swapIn(first, `${storeScopePrefix("s")}k`)).rejects.toThrow(RangeError);
      expect(await swapIn(first, `${scope}k`)()).toBe(1);
      expect(await swapIn(last, `${scope}k`, { value: "v", version: 1 })()).toBe(2);
      expect(await first.swapRecord(`${scope}gone`, undefined, "v", { session: record.id })).toBe(1);
      expect(await last.swapRecord(`${scope}gone`, { value: "v", version: 1 }, undefined, { session: record.id })).toBe(
        0,
      );
      expect(await last.deleteSession(record.id)).toBe(true);
      await expect(swapIn(last, `${scope}late`)).rejects.toThrow(/has ended \(or never was\)/);
      await eventually(() => goneEverywhere(engines, record.id), "the ended session's records to be gone");
    });

    it("deletes the records of a session that lapsed unused, and all of a session's many", async () => {
      const engines = await open();
      const [first] = engines as [SessionRecords];
      const last = engines.at(-1) as SessionRecords;
      const [brief, many] = [recordOf(), recordOf()];
      await first.createSession(brief, { ...ROOMY, idleMs: 2000 });
      await first.createSession(many, ROOMY);
      await last.writeRecord(`${storeScopePrefix("x", brief.id)}k`, "v", { session: brief.id });
      const scope = storeScopePrefix("x", many.id);
      const count = 700;
      for (let n = 0; n < count; n++) {
        await engines[n % engines.length]?.writeRecord(`${scope}${String(n).padStart(4, "0")}`, "v", {
          session: many.id,
        });
      }
      expect(await keysOf(first, many.id)).toHaveLength(count);
      await first.deleteSession(many.id);
      await eventually(() => goneEverywhere(engines, brief.id), "the records of the session past its idle time");
      await eventually(() => goneEverywhere(engines, many.id), `all ${count} records of the ended session`);
    });
  });
}
