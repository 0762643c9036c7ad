import { describe, expect, it } from "vitest";
import type { EngineLifecycle, ServerBus, ServerSignal } from "../engine/engine.js";
import { Heard, type MakeEngines, ODD, openerOf, TEST_TIMEOUT_MS } from "./helpers.js";

type Bus = EngineLifecycle & ServerBus;

/**
 * With two engines or more, the last broadcasts a marker and the first waits to hear it: whatever the first said
 * before then, it would have heard by now (the bus keeps each process's order). The marker, or undefined with one
 * engine (which hears no other process: nothing to wait for).
 */
async function busFlush(engines: readonly Bus[], heard: Heard<ServerSignal>): Promise<ServerSignal | undefined> {
  if (engines.length < 2) return undefined;
  const other = engines.at(-1) as Bus;
  const marker: ServerSignal = { type: "resourceUpdated", uri: `marker:${crypto.randomUUID()}` };
  await other.broadcast(marker);
  await heard.until((items) => items.some((s) => s.type === "resourceUpdated" && s.uri === marker.uri), "the marker");
  return marker;
}

/**
 * What every `ServerBus` carries between a server's processes and keeps for those to come, on one process and across
 * them (the cross-process tests skip with one engine; with one, what a process must not hear is checked only by
 * what it heard once its own calls returned).
 */
export function serverBusSuite(name: string, make: MakeEngines<Bus>): void {
  describe(`server bus suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two, server } = openerOf(make);
    describe("the bus", () => {
      it("never tells an engine its own broadcasts, and keeps handle ops in order (the last enable or disable)", async () => {
        const engines = await open();
        const [engine] = engines as [Bus];
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
        // Another process's broadcast, sent after these, arrives after anything they could have caused here.
        const marker = await busFlush(engines, own);
        expect(own.items).toEqual(marker === undefined ? [] : [marker]);
      });

      it("is not heard resuming at its start nor while its store is there all along", async () => {
        const engines = await open();
        const [engine] = engines as [Bus];
        let resumed = 0;
        for (const each of engines) each.onResume(() => resumed++);
        const heard = new Heard<ServerSignal>();
        engine.onBroadcast(heard.push);
        await engine.broadcast({ type: "resourceUpdated", uri: "file:///x" });
        await busFlush(engines, heard);
        expect(resumed).toBe(0);
      });

      it("keeps handle ops bounded by the handles, however often one is toggled", async () => {
        const [engine] = (await open()) as [Bus];
        const op = (name: string, what: "enable" | "disable" | "remove"): ServerSignal =>
          ({ type: "handle", kind: "tools", name, op: what }) as const;
        for (let i = 0; i < 500; i++) await engine.broadcast(op("flag", i % 2 ? "enable" : "disable"));
        await engine.broadcast(op("gone", "disable"));
        await engine.broadcast(op("gone", "remove"));
        await engine.broadcast(op("gone", "remove"));
        await engine.broadcast(op("gone", "enable"));
        await engine.broadcast({ type: "handle", kind: "prompts", name: "flag", op: "disable" });
        expect(await engine.handleOps()).toEqual([
          op("flag", "enable"),
          op("gone", "remove"),
          op("gone", "enable"),
          { type: "handle", kind: "prompts", name: "flag", op: "disable" },
        ]);
      });
    });

    describe("across processes", () => {
      it("carries a broadcast to the other processes, never back to its own", async (ctx) => {
        const [a, b] = (await two(ctx)) as [Bus, Bus];
        const [onA, onB] = [new Heard<ServerSignal>(), new Heard<ServerSignal>()];
        a.onBroadcast(onA.push);
        b.onBroadcast(onB.push);
        const fromA: ServerSignal = {
          type: "listChanged",
          kind: "prompts",
          names: [ODD[3] as string, ODD[6] as string],
        };
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
        const [a, later] = (await two(ctx, { start: "first" })) as [Bus, Bus];
        const ops: ServerSignal[] = [
          { type: "handle", kind: "tools", name: "x", op: "disable" },
          { type: "handle", kind: "prompts", name: ODD[0] as string, op: "remove" },
        ];
        for (const op of ops) await a.broadcast(op);
        await later.start(server());
        expect(await later.handleOps()).toEqual(ops);
      });
    });
  });
}
