import { describe, expect, it } from "vitest";
import type { Engine, ServerSignal, SessionLimits, SessionRecord, SessionSignal, StoredEvent } from "./engine.js";
import {
  eventsIn,
  eventually,
  flush,
  Heard,
  ODD,
  type Opener,
  ROOMY,
  recordOf,
} from "./engine-suite-helpers.test-util.js";

/** What every engine does on its own (one process). */
export function engineSuiteInOneProcess({ open }: Opener): void {
  describe("sessions", () => {
    it("keeps a session's record as given and loads it back", async () => {
      const [engine] = (await open()) as [Engine];
      const record = recordOf({ logLevel: "info" });
      expect(await engine.createSession(record, ROOMY)).toBe("created");
      expect(await engine.loadSession(record.id)).toEqual(record);
      expect(await engine.sessionIds()).toEqual([record.id]);
    });

    it("keeps a session without a principal or caller", async () => {
      const [engine] = (await open()) as [Engine];
      const record = recordOf({ principal: undefined, caller: undefined });
      expect(await engine.createSession(record, ROOMY)).toBe("created");
      expect(await engine.loadSession(record.id)).toEqual(record);
    });

    it("answers undefined or false for a session that never was or ended, and never brings it back", async () => {
      const [engine] = (await open()) as [Engine];
      expect(await engine.loadSession("never")).toBeUndefined();
      expect(await engine.deleteSession("never")).toBe(false);
      const record = recordOf();
      await engine.createSession(record, ROOMY);
      expect(await engine.deleteSession(record.id)).toBe(true);
      expect(await engine.deleteSession(record.id)).toBe(false);
      await engine.changeSession(record.id, { kind: "subscribe", uri: "file:///gone" });
      await engine.append(record.id, "get", "late");
      expect(await engine.loadSession(record.id)).toBeUndefined();
      expect(await engine.replay(record.id, "1")).toBeUndefined();
      expect(await engine.sessionIds()).toEqual([]);
      expect(await engine.subscribers("file:///gone")).toEqual([]);
      await engine.changeSession("never", { kind: "initialized" });
      expect(await engine.loadSession("never")).toBeUndefined();
    });

    it("starts afresh a session made again under an ended one's id: no subscriptions, no events", async () => {
      const [engine] = (await open()) as [Engine];
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

    it("applies each change: initialized, log level, subscribe (idempotent), unsubscribe (unknown: nothing)", async () => {
      const [engine] = (await open()) as [Engine];
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
      const [engine] = (await open()) as [Engine];
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
      const [engine] = (await open()) as [Engine];
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

    it("ends a session unused for its idleMs, and gives its place back", async () => {
      const [engine] = (await open()) as [Engine];
      const record = recordOf();
      const limits: SessionLimits = { max: 1, perCaller: 1, idleMs: 500 };
      expect(await engine.createSession(record, limits)).toBe("created");
      expect(await engine.createSession(recordOf(), limits)).toBe("full");
      // Each look restarts its idle time: look less often than that.
      await eventually(async () => (await engine.loadSession(record.id)) === undefined, "the idle session to end", 800);
      expect(await engine.createSession(recordOf(), limits)).toBe("created");
    });

    it("keeps sessions whose ids hold odd characters apart, each as it is", async () => {
      const [engine] = (await open()) as [Engine];
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

  describe("events", () => {
    it("replays the same stream's later events, oldest first, and nothing of other streams", async () => {
      const [engine] = (await open()) as [Engine];
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
      const [engine] = (await open()) as [Engine];
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      const start = await engine.append(id, "s", "");
      const data = [...ODD, "data: fake\n\nid: 7\n", "\u2028\u2029", '{"text":"é\\n"}'];
      for (const line of data) await engine.append(id, "s", line);
      expect((await engine.replay(id, start.id))?.events.map((e) => e.data)).toEqual(data);
    });

    it("answers undefined for an id the session does not hold", async () => {
      const [engine] = (await open()) as [Engine];
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
      const [engine] = (await open()) as [Engine];
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

  describe("the bus", () => {
    it("tells a session's followers each signal once, in order, its own appends included", async () => {
      const [engine] = (await open()) as [Engine];
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      const [first, second] = [new Heard<SessionSignal>(), new Heard<SessionSignal>()];
      await engine.follow(id, first.push);
      await engine.follow(id, second.push);
      const event = await engine.append(id, "get", "hello\nworld");
      const client: SessionSignal = { type: "client", line: '{"jsonrpc":"2.0","id":"n-1","result":{}}', from: "x" };
      await engine.signal(id, client);
      await engine.signal(id, { type: "taken", stream: "get", holder: engine.node });
      const expected: SessionSignal[] = [
        { type: "event", event },
        client,
        { type: "taken", stream: "get", holder: engine.node },
      ];
      await flush(engine, id, first, second);
      for (const heard of [first, second]) {
        expect(heard.items.slice(0, 3)).toEqual(expected);
        expect(heard.items.length).toBe(4);
      }
    });

    it("tells followers `ended` when the session is deleted", async () => {
      const [engine] = (await open()) as [Engine];
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      const heard = new Heard<SessionSignal>();
      await engine.follow(id, heard.push);
      await engine.deleteSession(id);
      await heard.until((items) => items.some((s) => s.type === "ended"), "the ended signal");
    });

    it("keeps sessions' channels apart (ids that prefix each other too) and stops after unfollow", async () => {
      const [engine] = (await open()) as [Engine];
      const ids = ["a", "a:b", "a*", "x".repeat(10_240)];
      const heard = new Map(ids.map((id) => [id, new Heard<SessionSignal>()]));
      for (const id of ids) {
        await engine.createSession(recordOf({ id }), ROOMY);
        await engine.follow(id, (heard.get(id) as Heard<SessionSignal>).push);
      }
      const gone = new Heard<SessionSignal>();
      const unfollow = await engine.follow("a", gone.push);
      await unfollow();
      await unfollow();
      for (const id of ids) await engine.append(id, "get", `for ${id}`);
      for (const id of ids) {
        const mine = heard.get(id) as Heard<SessionSignal>;
        await flush(engine, id, mine);
        expect(eventsIn(mine.items).map((e) => e.data)).toEqual([`for ${id}`]);
      }
      expect(gone.items).toEqual([]);
    });

    it("goes on telling the other followers when a listener throws", async () => {
      const [engine] = (await open()) as [Engine];
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      const heard = new Heard<SessionSignal>();
      await engine.follow(id, () => {
        throw new Error("a listener's bug");
      });
      await engine.follow(id, heard.push);
      await engine.append(id, "get", "one");
      await engine.append(id, "get", "two");
      await heard.until((items) => eventsIn(items).length === 2, "both events past the throwing listener");
    });

    it("never tells an engine its own broadcasts, and keeps handle ops in order (the last enable or disable)", async () => {
      const [engine] = (await open()) as [Engine];
      const own = new Heard<ServerSignal>();
      engine.onBroadcast(own.push);
      const ops: ServerSignal[] = [
        { type: "handle", kind: "tools", name: "a:b{c}", op: "disable" },
        { type: "listChanged", kind: "tools", names: ["a:b{c}"] },
        { type: "resourceUpdated", uri: "file:///x" },
        { type: "handle", kind: "templates", name: "t", op: "remove" },
        { type: "handle", kind: "tools", name: "a:b{c}", op: "enable" },
      ];
      for (const signal of ops) await engine.broadcast(signal);
      // The enable overrides the disable before it: only the ops that decide each handle stay.
      expect(await engine.handleOps()).toEqual([ops[3], ops[4]]);
      // A session signal sent after the broadcasts arrives after anything they could have caused.
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      const marker = new Heard<SessionSignal>();
      await engine.follow(id, marker.push);
      await flush(engine, id, marker);
      expect(own.items).toEqual([]);
    });

    it("is not heard resuming at its start nor while its store is there all along", async () => {
      const [engine] = (await open()) as [Engine];
      let resumed = 0;
      engine.onResume(() => resumed++);
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      await engine.broadcast({ type: "resourceUpdated", uri: "file:///x" });
      const marker = new Heard<SessionSignal>();
      await engine.follow(id, marker.push);
      await flush(engine, id, marker);
      expect(resumed).toBe(0);
    });

    it("takes running and finished requests, known or not, and closes twice without fault", async () => {
      const [engine] = (await open()) as [Engine];
      const { id } = recordOf();
      await engine.createSession(recordOf({ id }), ROOMY);
      await engine.running({ session: id, request: '"r-1"', stream: "post-1" });
      await engine.running({ session: id, request: "2", stream: "post-2" });
      await engine.finished(id, '"r-1"');
      await engine.finished(id, "never");
      await engine.finished("never", "2");
      await engine.close();
      await engine.close();
    });
  });
}
