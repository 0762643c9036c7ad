import { describe, expect, it } from "vitest";
import type { Engine, ServerSignal, SessionRecord, SessionSignal, StoredEvent } from "./engine.js";
import { Heard, type Opener, ROOMY, recordOf } from "./engine-suite-helpers.test-util.js";

/** What a careless or hostile caller hands an engine: every engine answers it the same, and keeps no secret. */
export function engineSuiteHostile({ open }: Opener): void {
  describe("hostile input", () => {
    it("keeps only what a record names: no extra key, and a principal without its token or claims", async () => {
      const [engine] = (await open()) as [Engine];
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
      const [engine] = (await open()) as [Engine];
      const record = recordOf();
      const given = structuredClone(record) as { -readonly [K in keyof SessionRecord]: SessionRecord[K] };
      await engine.createSession(given, ROOMY);
      (given.principal?.scopes as string[] | undefined)?.push("admin");
      (given.clientCapabilities as Record<string, unknown>).sampling = {};
      (given.clientInfo as { name: string }).name = "changed";
      given.version = "2025-03-26";
      expect(await engine.loadSession(record.id)).toEqual(record);
    });

    it("keeps `__proto__` as a plain name: in an id, a URI, a stream, capabilities", async () => {
      const [engine] = (await open()) as [Engine];
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

    it("keeps handle ops bounded by the handles, however often one is toggled", async () => {
      const [engine] = (await open()) as [Engine];
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

    it("takes limits without a bound on the count (Infinity) as no bound", async () => {
      const [engine] = (await open()) as [Engine];
      const limits = { max: Number.POSITIVE_INFINITY, perCaller: Number.POSITIVE_INFINITY, idleMs: 60_000 };
      const record = recordOf();
      expect(await engine.createSession(record, limits)).toBe("created");
      expect(await engine.createSession(recordOf(), limits)).toBe("created");
      expect((await engine.loadSession(record.id))?.id).toBe(record.id);
    });

    it("keeps and tells a 1 MB event exactly", async () => {
      const [engine] = (await open()) as [Engine];
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

    it("keeps URIs and streams with glob and hash-tag characters apart from each other", async () => {
      const [engine] = (await open()) as [Engine];
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
}
