import { describe, expect, it } from "vitest";
import type { EngineLifecycle, EventLog, SessionStore, StoredEvent } from "../engine/engine.js";
import { type MakeEngines, ODD, openerOf, ROOMY, recordOf, TEST_TIMEOUT_MS } from "./helpers.js";

type Events = EngineLifecycle & SessionStore & EventLog;

/**
 * What every `EventLog` keeps of a session's events, and how they live and die with their session (`SessionStore`
 * makes the sessions), on one process and across them (skipped with one engine).
 */
export function eventLogSuite(name: string, make: MakeEngines<Events>): void {
  describe(`event log suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two } = openerOf(make);
    describe("events", () => {
      it("replays the same stream's later events, oldest first, and nothing of other streams", async () => {
        const [engine] = (await open()) as [Events];
        const { id } = recordOf();
        await engine.createSession(recordOf({ id }), ROOMY);
        const priming = await engine.append(id, "get", "");
        const other = await engine.append(id, "post-1", '{"jsonrpc":"2.0","id":1,"result":{}}');
        const a = await engine.append(id, "get", '{"jsonrpc":"2.0","method":"notifications/a"}');
        await engine.append(id, "post-1", "more of post-1");
        const b = await engine.append(id, "get", '{"jsonrpc":"2.0","method":"notifications/b"}');
        expect(new Set([priming.id, other.id, a.id, b.id]).size).toBe(4);
        expect(priming).toEqual({ id: priming.id, stream: "get", data: "" });
        expect(await engine.replay(id, priming.id)).toEqual({ stream: "get", events: [a, b] });
        expect(await engine.replay(id, a.id)).toEqual({ stream: "get", events: [b] });
        expect(await engine.replay(id, b.id)).toEqual({ stream: "get", events: [] });
        expect((await engine.replay(id, other.id))?.events.map((e) => e.data)).toEqual(["more of post-1"]);
      });

      it("keeps data exactly: unicode, newlines, a line that looks like SSE", async () => {
        const [engine] = (await open()) as [Events];
        const { id } = recordOf();
        await engine.createSession(recordOf({ id }), ROOMY);
        const start = await engine.append(id, "s", "");
        const data = [...ODD, "data: fake\n\nid: 7\n", "\u2028\u2029", '{"text":"é\\n"}'];
        for (const line of data) await engine.append(id, "s", line);
        expect((await engine.replay(id, start.id))?.events.map((e) => e.data)).toEqual(data);
      });

      it("answers undefined for an id the session does not hold", async () => {
        const [engine] = (await open()) as [Events];
        const [mine, theirs] = [recordOf(), recordOf()];
        await engine.createSession(mine, ROOMY);
        await engine.createSession(theirs, ROOMY);
        const kept = await engine.append(mine.id, "get", "mine");
        let last = kept;
        for (let i = 0; i < 5; i++) last = await engine.append(theirs.id, "get", `theirs ${i}`);
        for (const bad of ["", "abc", "-1", "0", "1e3", "1.5", " 1", "99999999999999999999", "1-0", "0-1", last.id]) {
          expect(await engine.replay(mine.id, bad), `replay after ${JSON.stringify(bad)}`).toBeUndefined();
        }
        expect(await engine.replay("never", kept.id)).toBeUndefined();
        expect(await engine.replay(mine.id, kept.id)).toEqual({ stream: "get", events: [] });
      });

      it("keeps a bounded number of events per session, dropping the oldest", async () => {
        const [engine] = (await open()) as [Events];
        const { id } = recordOf();
        await engine.createSession(recordOf({ id }), ROOMY);
        const events: StoredEvent[] = [];
        for (let i = 0; i < 2000; i++) events.push(await engine.append(id, "get", `${i}`));
        expect(await engine.replay(id, (events[0] as StoredEvent).id)).toBeUndefined();
        const recent = events.length - 100;
        const replayed = await engine.replay(id, (events[recent] as StoredEvent).id);
        expect(replayed?.events).toEqual(events.slice(recent + 1));
      });
    });

    describe("events and their session", () => {
      it("keeps nothing appended to a session that ended or never was, and never brings it back", async () => {
        const [engine] = (await open()) as [Events];
        const record = recordOf();
        await engine.createSession(record, ROOMY);
        const kept = await engine.append(record.id, "get", "kept");
        expect(await engine.deleteSession(record.id)).toBe(true);
        expect(await engine.append(record.id, "get", "late")).toEqual({ id: "", stream: "get", data: "late" });
        expect(await engine.loadSession(record.id)).toBeUndefined();
        expect(await engine.replay(record.id, kept.id)).toBeUndefined();
        expect(await engine.replay(record.id, "1")).toBeUndefined();
        expect(await engine.sessionIds()).toEqual([]);
        expect((await engine.append("never", "get", "x")).id).toBe("");
        expect(await engine.loadSession("never")).toBeUndefined();
      });

      it("starts afresh a session made again under an ended one's id: no subscriptions, no events", async () => {
        const [engine] = (await open()) as [Events];
        const record = recordOf();
        await engine.createSession(record, ROOMY);
        await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///old" });
        const old = await engine.append(record.id, "get", "old");
        await engine.deleteSession(record.id);
        await engine.createSession(record, ROOMY);
        expect(await engine.loadSession(record.id)).toEqual(record);
        expect(await engine.subscribers("file:///old")).toEqual([]);
        expect(await engine.replay(record.id, old.id)).toBeUndefined();
      });

      it("keeps sessions whose ids hold odd characters apart, each as it is", async () => {
        const [engine] = (await open()) as [Events];
        const ids = [...ODD, "a", "a:b", "a:b:events"];
        for (const id of ids) {
          expect(await engine.createSession(recordOf({ id, caller: id }), ROOMY)).toBe("created");
          // A URI past what a subscription may name is refused (the bounds' own test); the rest are kept.
          if (id.length <= 1000) await engine.changeSession(id, { kind: "subscribe", uri: id });
        }
        for (const id of ids) {
          expect((await engine.loadSession(id))?.id).toBe(id);
          expect(await engine.subscribers(id)).toEqual(id.length <= 1000 ? [id] : []);
          await engine.append(id, id, `data of ${id}`);
        }
        for (const id of ids) {
          const first = await engine.append(id, id, "second");
          expect(await engine.replay(id, first.id)).toEqual({ stream: id, events: [] });
        }
        expect([...(await engine.sessionIds())].sort()).toEqual([...ids].sort());
        for (const id of ids) expect(await engine.deleteSession(id)).toBe(true);
        expect(await engine.sessionIds()).toEqual([]);
      });
    });

    describe("hostile input", () => {
      it("keeps `__proto__` as a plain name: in an id, a URI, a stream, capabilities", async () => {
        const [engine] = (await open()) as [Events];
        const capabilities = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}');
        const record = recordOf({ id: "__proto__", caller: "__proto__", clientCapabilities: capabilities });
        expect(await engine.createSession(record, ROOMY)).toBe("created");
        await engine.changeSession("__proto__", { kind: "subscribe", uri: "__proto__" });
        const loaded = await engine.loadSession("__proto__");
        expect(JSON.stringify(loaded?.clientCapabilities)).toBe(JSON.stringify(capabilities));
        expect(await engine.subscribers("__proto__")).toEqual(["__proto__"]);
        expect(await engine.subscribers("constructor")).toEqual([]);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        const first = await engine.append("__proto__", "__proto__", "one");
        const second = await engine.append("__proto__", "__proto__", "two");
        expect(await engine.replay("__proto__", first.id)).toEqual({ stream: "__proto__", events: [second] });
        expect(await engine.deleteSession("__proto__")).toBe(true);
      });

      it("keeps URIs and streams with glob and hash-tag characters apart from each other", async () => {
        const [engine] = (await open()) as [Events];
        const uris = ["*", "?", "[a]", "file:///*", "file:///{x}", "file:///?", "file:///a", "\\*"];
        const byUri = new Map<string, string>();
        for (const uri of uris) {
          const record = recordOf();
          await engine.createSession(record, ROOMY);
          await engine.changeSession(record.id, { kind: "subscribe", uri });
          byUri.set(uri, record.id);
        }
        for (const uri of uris) expect(await engine.subscribers(uri)).toEqual([byUri.get(uri)]);
        const id = byUri.get("*") as string;
        const marks = await Promise.all(["*", "?", "[*]"].map((s) => engine.append(id, s, `first of ${s}`)));
        for (const [i, s] of ["*", "?", "[*]"].entries()) {
          const next = await engine.append(id, s, `second of ${s}`);
          expect(await engine.replay(id, (marks[i] as StoredEvent).id)).toEqual({ stream: s, events: [next] });
        }
      });
    });

    describe("across processes", () => {
      it("replays on one what was appended on another, after ids unique across them", async (ctx) => {
        const [a, b] = (await two(ctx)) as [Events, Events];
        const { id } = recordOf();
        await a.createSession(recordOf({ id }), ROOMY);
        const events: StoredEvent[] = [];
        for (let i = 0; i < 10; i++) events.push(await (i % 2 ? a : b).append(id, "get", `event ${i}\n${ODD[6]}`));
        expect(new Set(events.map((e) => e.id)).size).toBe(10);
        for (const engine of [a, b]) {
          expect(await engine.replay(id, (events[3] as StoredEvent).id)).toEqual({
            stream: "get",
            events: events.slice(4),
          });
        }
      });
    });
  });
}
