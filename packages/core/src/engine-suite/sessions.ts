import { describe, expect, it } from "vitest";
import type { EngineLifecycle, SessionLimits, SessionRecord, SessionStore } from "../engine/engine.js";
import { sessionBoundsCases } from "./bounds.js";
import { eventually, type MakeEngines, ODD, openerOf, ROOMY, recordOf, TEST_TIMEOUT_MS } from "./helpers.js";

type Sessions = EngineLifecycle & SessionStore;

/**
 * What every `SessionStore` keeps of a session, on one process and across them (the cross-process tests skip with
 * one engine); what one session may keep is `sessionBoundsCases`.
 */
export function sessionStoreSuite(name: string, make: MakeEngines<Sessions>): void {
  describe(`session store suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two } = openerOf(make);
    describe("sessions", () => {
      it("keeps a session's record as given and loads it back", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf({ logLevel: "info" });
        expect(await engine.createSession(record, ROOMY)).toBe("created");
        expect(await engine.loadSession(record.id)).toEqual(record);
        expect(await engine.sessionIds()).toEqual([record.id]);
      });

      it("keeps a session without a principal or caller", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf({ principal: undefined, caller: undefined });
        expect(await engine.createSession(record, ROOMY)).toBe("created");
        expect(await engine.loadSession(record.id)).toEqual(record);
      });

      it("answers undefined or false for a session that never was or ended, and never brings it back", async () => {
        const [engine] = (await open()) as [Sessions];
        expect(await engine.loadSession("never")).toBeUndefined();
        expect(await engine.deleteSession("never")).toBe(false);
        const record = recordOf();
        await engine.createSession(record, ROOMY);
        expect(await engine.deleteSession(record.id)).toBe(true);
        expect(await engine.deleteSession(record.id)).toBe(false);
        await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///gone" });
        expect(await engine.loadSession(record.id)).toBeUndefined();
        expect(await engine.sessionIds()).toEqual([]);
        expect(await engine.subscribers("file:///gone")).toEqual([]);
        await engine.changeSession("never", { kind: "initialized" });
        expect(await engine.loadSession("never")).toBeUndefined();
      });

      it("applies each change: initialized, log level, subscribe (idempotent), unsubscribe (unknown: nothing)", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf();
        await engine.createSession(record, ROOMY);
        await engine.changeSession(record.id, { kind: "initialized" });
        await engine.changeSession(record.id, { kind: "logLevel", level: "warning" });
        await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///a" });
        await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///a" });
        await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///b" });
        await engine.changeSession(record.id, { kind: "unsubscribe", uri: "file:///never" });
        const loaded = await engine.loadSession(record.id);
        expect(loaded).toEqual({ ...record, initialized: true, logLevel: "warning" });
        expect(await engine.subscribers("file:///a")).toEqual([record.id]);
        expect(await engine.subscribers("file:///b")).toEqual([record.id]);
        await engine.changeSession(record.id, { kind: "unsubscribe", uri: "file:///a" });
        expect(await engine.subscribers("file:///a")).toEqual([]);
        expect(await engine.subscribers("file:///b")).toEqual([record.id]);
      });

      it("tells subscribers of a URI apart from those of another, and forgets an ended session's", async () => {
        const [engine] = (await open()) as [Sessions];
        const [a, b] = [recordOf(), recordOf()];
        await engine.createSession(a, ROOMY);
        await engine.createSession(b, ROOMY);
        await engine.changeSession(a.id, { kind: "subscribe", uri: "file:///x" });
        await engine.changeSession(b.id, { kind: "subscribe", uri: "file:///x" });
        await engine.changeSession(b.id, { kind: "subscribe", uri: "file:///x/y" });
        expect([...(await engine.subscribers("file:///x"))].sort()).toEqual([a.id, b.id].sort());
        expect(await engine.subscribers("file:///x/y")).toEqual([b.id]);
        expect(await engine.subscribers("file:///")).toEqual([]);
        await engine.deleteSession(b.id);
        expect(await engine.subscribers("file:///x")).toEqual([a.id]);
        expect(await engine.subscribers("file:///x/y")).toEqual([]);
      });

      it("bounds sessions in all and per caller, counting only live ones, given back when one ends", async () => {
        const [engine] = (await open()) as [Sessions];
        const limits: SessionLimits = { max: 3, perCaller: 2, idleMs: 60_000 };
        const mine = [recordOf({ caller: "subject me" }), recordOf({ caller: "subject me" })];
        for (const record of mine) expect(await engine.createSession(record, limits)).toBe("created");
        expect(await engine.createSession(recordOf({ caller: "subject me" }), limits)).toBe("full-for-caller");
        expect(await engine.createSession(recordOf({ caller: undefined }), limits)).toBe("created");
        expect(await engine.createSession(recordOf({ caller: "subject other" }), limits)).toBe("full");
        expect(await engine.createSession(recordOf({ caller: undefined }), limits)).toBe("full");
        await engine.deleteSession((mine[0] as SessionRecord).id);
        expect(await engine.createSession(recordOf({ caller: "subject me" }), limits)).toBe("created");
        expect((await engine.sessionIds()).length).toBe(3);
      });

      it("reads the initialized sessions (of a URI) with their principals, and they still expire however often", async () => {
        const [engine] = (await open()) as [Sessions];
        const limits: SessionLimits = { max: 10, perCaller: 10, idleMs: 500 };
        const [a, b, c] = [recordOf(), recordOf({ principal: undefined, caller: undefined }), recordOf()];
        for (const record of [a, b, c]) await engine.createSession(record, limits);
        for (const id of [a.id, b.id]) await engine.changeSession(id, { kind: "initialized" });
        for (const id of [a.id, c.id]) await engine.changeSession(id, { kind: "subscribe", uri: "file:///x" });
        const sorted = async (uri?: string) =>
          [...(await engine.initializedSessions(uri))].sort((x, y) => (x.id < y.id ? -1 : 1));
        const all = [{ id: a.id, principal: a.principal }, { id: b.id }].sort((x, y) => (x.id < y.id ? -1 : 1));
        expect(await sorted()).toEqual(all);
        expect(await sorted("file:///x")).toEqual([{ id: a.id, principal: a.principal }]);
        expect(await sorted("file:///none")).toEqual([]);
        // Read far more often than the idle time: no read restarts it.
        await eventually(async () => (await sorted()).length === 0, "the initialized sessions to end while read", 20);
        expect(await engine.loadSession(a.id)).toBeUndefined();
        expect(await sorted("file:///x")).toEqual([]);
      });

      it("ends a session unused for its idleMs, and gives its place back", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf();
        const limits: SessionLimits = { max: 1, perCaller: 1, idleMs: 500 };
        expect(await engine.createSession(record, limits)).toBe("created");
        expect(await engine.createSession(recordOf(), limits)).toBe("full");
        // Each look restarts its idle time: look less often than that.
        await eventually(
          async () => (await engine.loadSession(record.id)) === undefined,
          "the idle session to end",
          800,
        );
        expect(await engine.createSession(recordOf(), limits)).toBe("created");
      });
    });

    describe("hostile input", () => {
      it("keeps only what a record names: no extra key, and a principal without its token or claims", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf();
        const given = {
          ...record,
          token: "secret-token",
          stateKey: "secret-state-key",
          principal: {
            subject: "user-1",
            scopes: ["read"],
            clientId: "client-1",
            token: "secret-token",
            password: "hunter2",
            claims: { email: "a@b.c" },
          },
        } as SessionRecord;
        await engine.createSession(given, ROOMY);
        const loaded = await engine.loadSession(record.id);
        expect(loaded).toEqual({ ...record, principal: { subject: "user-1", scopes: ["read"], clientId: "client-1" } });
        expect(JSON.stringify(loaded)).not.toMatch(/secret|hunter2|a@b\.c/);
      });

      it("keeps a record as it was given, whatever the caller does to its object afterwards", async () => {
        const [engine] = (await open()) as [Sessions];
        const record = recordOf();
        const given = structuredClone(record) as { -readonly [K in keyof SessionRecord]: SessionRecord[K] };
        await engine.createSession(given, ROOMY);
        (given.principal?.scopes as string[] | undefined)?.push("admin");
        (given.clientCapabilities as Record<string, unknown>).sampling = {};
        (given.clientInfo as { name: string }).name = "changed";
        given.version = "2025-03-26";
        expect(await engine.loadSession(record.id)).toEqual(record);
      });

      it("takes limits without a bound on the count (Infinity) as no bound", async () => {
        const [engine] = (await open()) as [Sessions];
        const limits = { max: Number.POSITIVE_INFINITY, perCaller: Number.POSITIVE_INFINITY, idleMs: 60_000 };
        const record = recordOf();
        expect(await engine.createSession(record, limits)).toBe("created");
        expect(await engine.createSession(recordOf(), limits)).toBe("created");
        expect((await engine.loadSession(record.id))?.id).toBe(record.id);
      });
    });

    sessionBoundsCases(open);

    describe("across processes", () => {
      it("loads on one a session made on another, and sees its changes and its end anywhere", async (ctx) => {
        const [a, b] = (await two(ctx)) as [Sessions, Sessions];
        const record = recordOf({ id: `${ODD[3]}-${crypto.randomUUID()}` });
        await a.createSession(record, ROOMY);
        expect(await b.loadSession(record.id)).toEqual(record);
        await b.changeSession(record.id, { kind: "initialized" });
        await b.changeSession(record.id, { kind: "logLevel", level: "debug" });
        await b.changeSession(record.id, { kind: "subscribe", uri: "file:///shared" });
        expect(await a.loadSession(record.id)).toEqual({
          ...record,
          initialized: true,
          logLevel: "debug",
        });
        expect(await a.subscribers("file:///shared")).toEqual([record.id]);
        expect(await a.sessionIds()).toEqual([record.id]);
        expect(await b.deleteSession(record.id)).toBe(true);
        expect(await a.loadSession(record.id)).toBeUndefined();
        expect(await a.deleteSession(record.id)).toBe(false);
      });

      it("counts sessions against the limits across processes", async (ctx) => {
        const [a, b] = (await two(ctx)) as [Sessions, Sessions];
        const limits: SessionLimits = { max: 3, perCaller: 2, idleMs: 60_000 };
        expect(await a.createSession(recordOf({ caller: "subject me" }), limits)).toBe("created");
        expect(await b.createSession(recordOf({ caller: "subject me" }), limits)).toBe("created");
        expect(await a.createSession(recordOf({ caller: "subject me" }), limits)).toBe("full-for-caller");
        const other = recordOf({ caller: "subject other" });
        expect(await b.createSession(other, limits)).toBe("created");
        expect(await a.createSession(recordOf({ caller: undefined }), limits)).toBe("full");
        await a.deleteSession(other.id);
        expect(await b.createSession(recordOf({ caller: undefined }), limits)).toBe("created");
      });
    });
  });
}
