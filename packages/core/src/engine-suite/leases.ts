import { describe, expect, it } from "vitest";
import type {
  EngineLifecycle,
  EventLog,
  RequestLeases,
  RunningRequest,
  SessionChannel,
  SessionSignal,
  SessionStore,
} from "../engine/engine.js";
import {
  expectLeaseLost,
  flush,
  Heard,
  type MakeEngines,
  openerOf,
  ROOMY,
  recordOf,
  TEST_TIMEOUT_MS,
} from "./helpers.js";

// What a lapsed lease may take to be noticed: the engine's lease time plus its check, on a slow shared machine.
const ORPHAN_DEADLINE_MS = 30_000;

type Leased = EngineLifecycle & SessionStore & EventLog & SessionChannel & RequestLeases;

/**
 * What every `RequestLeases` promises of the requests a process runs: fenced appends while it holds them, and one
 * other process given each it left running (`SessionStore`, `EventLog` and `SessionChannel` set up and observe them;
 * the cross-process tests skip with one engine).
 */
export function requestLeasesSuite(name: string, make: MakeEngines<Leased>): void {
  describe(`request leases suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two } = openerOf(make);
    describe("leases", () => {
      it("takes running and finished requests, known or not, and closes twice without fault", async () => {
        const [engine] = (await open()) as [Leased];
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

      it("appends a running request's event only while this process runs it: refused, nothing kept, otherwise", async (ctx) => {
        const [runner, other] = (await two(ctx)) as [Leased, Leased];
        const { id } = recordOf();
        await runner.createSession(recordOf({ id }), ROOMY);
        const request = '"r-1"';
        const first = await runner.append(id, "post-1", "", undefined);
        await runner.running({ session: id, request, stream: "post-1" });
        await runner.append(id, "post-1", '{"progress":1}', { running: request });
        await expectLeaseLost(() => other.append(id, "post-1", '{"other":1}', { running: request }));
        await runner.finished(id, request);
        await expectLeaseLost(() => runner.append(id, "post-1", '{"late":1}', { running: request }));
        const replayed = await other.replay(id, first.id);
        expect(replayed?.events.map((event) => event.data)).toEqual(['{"progress":1}']);
      });
    });

    describe("across processes", () => {
      it("gives a request its process left running to exactly one other process, once", {
        timeout: ORPHAN_DEADLINE_MS + 10_000,
      }, async (ctx) => {
        const engines = await two(ctx);
        const [owner, ...others] = engines as [Leased, ...Leased[]];
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
        const survivor = others[0] as Leased;
        const marker = new Heard<SessionSignal>();
        await survivor.follow(id, marker.push);
        await flush(survivor, id, marker);
        expect(orphans.items.length).toBe(1);
      });
    });
  });
}
