import { describe, expect, it } from "vitest";
import type { Engine, RunningRequest, ServerSignal, SessionLimits, SessionSignal, StoredEvent } from "./engine.js";
import { eventsIn, flush, Heard, ODD, type Opener, ROOMY, recordOf } from "./engine-suite-helpers.test-util.js";

// What a lapsed lease may take to be noticed: the engine's lease time plus its check, on a slow shared machine.
const ORPHAN_DEADLINE_MS = 30_000;

/** What engines of one server do together, as processes would (skipped when `make` gives one engine). */
export function engineSuiteAcrossProcesses({ two, server }: Opener): void {
  describe("across processes", () => {
    it("tells its processes apart and says it is shared", async (ctx) => {
      const engines = await two(ctx);
      expect(new Set(engines.map((e) => e.node)).size).toBe(engines.length);
      for (const engine of engines) expect(engine.shared).toBe(true);
    });

    it("loads on one a session made on another, and sees its changes and its end anywhere", async (ctx) => {
      const [a, b] = (await two(ctx)) as [Engine, Engine];
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
      const ended = new Heard<SessionSignal>();
      await a.follow(record.id, ended.push);
      expect(await b.deleteSession(record.id)).toBe(true);
      expect(await a.loadSession(record.id)).toBeUndefined();
      expect(await a.deleteSession(record.id)).toBe(false);
      await ended.until((items) => items.some((s) => s.type === "ended"), "`ended`, from the other process");
    });

    it("counts sessions against the limits across processes", async (ctx) => {
      const [a, b] = (await two(ctx)) as [Engine, Engine];
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

    it("replays on one what was appended on another, after ids unique across them", async (ctx) => {
      const [a, b] = (await two(ctx)) as [Engine, Engine];
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

    it("tells every follower, on every process, each signal exactly once and in order", async (ctx) => {
      const engines = await two(ctx);
      const [a, b] = engines as [Engine, Engine];
      const { id } = recordOf();
      await a.createSession(recordOf({ id }), ROOMY);
      const followers = engines.map(() => new Heard<SessionSignal>());
      for (const [i, engine] of engines.entries()) await engine.follow(id, (followers[i] as Heard<SessionSignal>).push);
      const appended: StoredEvent[] = [];
      for (let i = 0; i < 20; i++) appended.push(await (i % 2 ? a : b).append(id, i % 3 ? "get" : "post-1", `${i}`));
      const client: SessionSignal = { type: "client", line: '{"jsonrpc":"2.0","method":"x"}', from: b.node };
      await b.signal(id, client);
      await flush(a, id, ...(followers as [Heard<SessionSignal>]));
      for (const heard of followers) {
        expect(eventsIn(heard.items)).toEqual(appended);
        expect(heard.items[20]).toEqual(client);
        // The 20 events, the client's message, and the one flush marker every follower waited for.
        expect(heard.items.length).toBe(22);
      }
    });

    it("carries a broadcast to the other processes, never back to its own", async (ctx) => {
      const [a, b] = (await two(ctx)) as [Engine, Engine];
      const [onA, onB] = [new Heard<ServerSignal>(), new Heard<ServerSignal>()];
      a.onBroadcast(onA.push);
      b.onBroadcast(onB.push);
      const fromA: ServerSignal = { type: "listChanged", kind: "prompts", names: [ODD[3] as string, ODD[6] as string] };
      const fromB: ServerSignal = { type: "resourceUpdated", uri: "file:///b\nc" };
      await a.broadcast(fromA);
      await b.broadcast(fromB);
      await onB.until((items) => items.length >= 1, "A's broadcast on B");
      await onA.until((items) => items.length >= 1, "B's broadcast on A");
      // B's broadcast came after A's: had A heard its own, it would have heard it first.
      expect(onA.items).toEqual([fromB]);
      expect(onB.items).toEqual([fromA]);
    });

    it("keeps handle ops for a process that starts later", async (ctx) => {
      const [a, later] = (await two(ctx, { start: "first" })) as [Engine, Engine];
      const ops: ServerSignal[] = [
        { type: "handle", kind: "tools", name: "x", op: "disable" },
        { type: "handle", kind: "prompts", name: ODD[0] as string, op: "remove" },
      ];
      for (const op of ops) await a.broadcast(op);
      await later.start(server());
      expect(await later.handleOps()).toEqual(ops);
    });

    it("gives a request its process left running to exactly one other process, once", {
      timeout: ORPHAN_DEADLINE_MS + 10_000,
    }, async (ctx) => {
      const engines = await two(ctx);
      const [owner, ...others] = engines as [Engine, ...Engine[]];
      const { id } = recordOf();
      await owner.createSession(recordOf({ id }), ROOMY);
      const orphans = new Heard<{ node: string; request: RunningRequest }>();
      for (const engine of others) engine.onOrphan((request) => orphans.push({ node: engine.node, request }));
      const left: RunningRequest = { session: id, request: '"req-1"', stream: "post-7" };
      await owner.running(left);
      await owner.running({ session: id, request: "2", stream: "post-8" });
      await owner.finished(id, "2");
      await owner.close();
      const heard = await orphans.until((items) => items.length >= 1, "the orphaned request", ORPHAN_DEADLINE_MS);
      expect(heard.map((o) => o.request)).toEqual([left]);
      // The same process's next signal comes after any second hearing would have.
      const survivor = others[0] as Engine;
      const marker = new Heard<SessionSignal>();
      await survivor.follow(id, marker.push);
      await flush(survivor, id, marker);
      expect(orphans.items.length).toBe(1);
    });
  });
}
