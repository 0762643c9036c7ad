import { describe, expect, it } from "vitest";
import type {
  EngineLifecycle,
  EventLog,
  SessionChannel,
  SessionSignal,
  SessionStore,
  StoredEvent,
} from "../engine/engine.js";
import { eventsIn, flush, Heard, type MakeEngines, openerOf, ROOMY, recordOf, TEST_TIMEOUT_MS } from "./helpers.js";

// The client lines an engine keeps for one process from one session until it takes them (the oldest first).
const MAX_CLIENT_LINES_PER_SESSION = 16;

type Channels = EngineLifecycle & SessionStore & EventLog & SessionChannel;

/**
 * What every `SessionChannel` carries between the processes following a session, and what it keeps for a process that
 * missed a signal (`SessionStore` makes the sessions, `EventLog`'s appends travel on it), on one process and across
 * them (skipped with one engine).
 */
export function sessionChannelSuite(name: string, make: MakeEngines<Channels>): void {
  describe(`session channel suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two } = openerOf(make);
    describe("the channel", () => {
      it("tells a session's followers each signal once, in order, its own appends included", async () => {
        const [engine] = (await open()) as [Channels];
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
        const [engine] = (await open()) as [Channels];
        const { id } = recordOf();
        await engine.createSession(recordOf({ id }), ROOMY);
        const heard = new Heard<SessionSignal>();
        await engine.follow(id, heard.push);
        await engine.deleteSession(id);
        await heard.until((items) => items.some((s) => s.type === "ended"), "the ended signal");
      });

      it("keeps sessions' channels apart (ids that prefix each other too) and stops after unfollow", async () => {
        const [engine] = (await open()) as [Channels];
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
        const [engine] = (await open()) as [Channels];
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

      it("keeps and tells a 1 MB event exactly", async () => {
        const [engine] = (await open()) as [Channels];
        const { id } = recordOf();
        await engine.createSession(recordOf({ id }), ROOMY);
        const heard = new Heard<SessionSignal>();
        await engine.follow(id, heard.push);
        const start = await engine.append(id, "get", "");
        const big = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { text: 'é\u2028🙂\\"'.repeat(150_000) } });
        expect(big.length).toBeGreaterThan(1_000_000);
        const event = await engine.append(id, "get", big);
        expect(await engine.replay(id, start.id)).toEqual({ stream: "get", events: [event] });
        const told = await heard.until((s) => s.length >= 2, "the 1 MB event on the bus");
        expect((told[1] as { event: StoredEvent }).event).toEqual(event);
      });
    });

    describe("across processes", () => {
      it("tells every follower, on every process, each signal exactly once and in order", async (ctx) => {
        const engines = await two(ctx);
        const [a, b] = engines as [Channels, Channels];
        const { id } = recordOf();
        await a.createSession(recordOf({ id }), ROOMY);
        const followers = engines.map(() => new Heard<SessionSignal>());
        for (const [i, engine] of engines.entries())
          await engine.follow(id, (followers[i] as Heard<SessionSignal>).push);
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

      it("tells `ended` to a follower on one process when another ends the session", async (ctx) => {
        const [a, b] = (await two(ctx)) as [Channels, Channels];
        const record = recordOf();
        await a.createSession(record, ROOMY);
        const ended = new Heard<SessionSignal>();
        await a.follow(record.id, ended.push);
        expect(await b.deleteSession(record.id)).toBe(true);
        await ended.until((items) => items.some((s) => s.type === "ended"), "`ended`, from the other process");
      });
    });

    describe("what is kept for a process", () => {
      it("keeps a client's cancellation with its session for the process running the request: taken once, bounded", async () => {
        const engines = await open();
        const [runner, other] = [engines[0] as Channels, engines.at(-1) as Channels];
        const [{ id }, { id: stranger }] = [recordOf(), recordOf()];
        await runner.createSession(recordOf({ id }), ROOMY);
        await runner.createSession(recordOf({ id: stranger }), ROOMY);
        const cancel = (request: string) =>
          `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${request}}}`;
        await other.signal(id, { type: "client", line: cancel("7"), from: other.node, cancels: "7" });
        await other.signal(id, { type: "client", line: cancel('"s"'), from: other.node, cancels: '"s"' });
        // Another session's request of the same id, and a request not asked about, find nothing.
        const asked = [
          { session: stranger, request: "7" },
          { session: id, request: "8" },
          { session: id, request: "7" },
          { session: id, request: '"s"' },
        ];
        expect(await runner.takeCancels(asked)).toEqual([
          { session: id, request: "7", line: cancel("7") },
          { session: id, request: '"s"', line: cancel('"s"') },
        ]);
        expect(await runner.takeCancels(asked)).toEqual([]);
        expect(await runner.takeCancels([])).toEqual([]);
        // The newest 64 per session: a client flooding its own session pushes out its own oldest alone.
        for (let n = 0; n < 70; n++) {
          await other.signal(id, { type: "client", line: cancel(String(n)), from: other.node, cancels: String(n) });
        }
        await other.signal(stranger, { type: "client", line: cancel("1"), from: other.node, cancels: "1" });
        const all = Array.from({ length: 70 }, (_, n) => ({ session: id, request: String(n) }));
        const taken = await runner.takeCancels([...all, { session: stranger, request: "1" }]);
        expect(taken.map((one) => `${one.session === id ? "" : "x"}${one.request}`)).toEqual([
          ...all.slice(6).map((one) => one.request),
          "x1",
        ]);
        // None kept for a session that ended (or never was).
        await other.signal(id, { type: "client", line: cancel("9"), from: other.node, cancels: "9" });
        await runner.deleteSession(id);
        await other.signal(id, { type: "client", line: cancel("10"), from: other.node, cancels: "10" });
        expect(
          await runner.takeCancels([
            { session: id, request: "9" },
            { session: id, request: "10" },
          ]),
        ).toEqual([]);
      });

      it("keeps a few client lines per session for a process: one session's flood pushes out no other's answer", async () => {
        const engines = await open();
        const [asker, other] = [engines[0] as Channels, engines.at(-1) as Channels];
        const [{ id: victim }, { id: flooder }] = [recordOf(), recordOf()];
        await asker.createSession(recordOf({ id: victim }), ROOMY);
        await asker.createSession(recordOf({ id: flooder }), ROOMY);
        const line = (n: number) => `{"jsonrpc":"2.0","id":"${asker.node}-1-${n}","result":{}}`;
        await other.signal(victim, { type: "client", line: line(1), from: other.node, to: asker.node });
        for (let n = 0; n < 300; n++) {
          await other.signal(flooder, { type: "client", line: line(n), from: other.node, to: asker.node });
        }
        const taken = await asker.takeClientLines();
        expect(taken[0]).toEqual({ session: victim, line: line(1) });
        expect(taken.length).toBe(1 + MAX_CLIENT_LINES_PER_SESSION);
        // Taking them makes room again.
        await other.signal(flooder, { type: "client", line: line(301), from: other.node, to: asker.node });
        expect(await asker.takeClientLines()).toEqual([{ session: flooder, line: line(301) }]);
      });

      it("keeps a client line addressed to a process for it alone, taken once, oldest first", async (ctx) => {
        const [asker, other] = (await two(ctx)) as [Channels, Channels];
        const { id } = recordOf();
        await asker.createSession(recordOf({ id }), ROOMY);
        const lines = ['{"jsonrpc":"2.0","id":"a-1-1","result":{}}', '{"jsonrpc":"2.0","id":"a-1-2","result":{}}'];
        for (const line of lines) await other.signal(id, { type: "client", line, from: other.node, to: asker.node });
        // Without `to` (a cancellation), nothing is kept.
        const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}';
        await other.signal(id, { type: "client", line: cancel, from: other.node });
        expect(await other.takeClientLines()).toEqual([]);
        expect(await asker.takeClientLines()).toEqual(lines.map((line) => ({ session: id, line })));
        expect(await asker.takeClientLines()).toEqual([]);
      });
    });
  });
}
