import { describe, expect, it } from "vitest";
import type { EngineLifecycle, SessionStore } from "../engine/engine.js";
import { SESSION_BOUNDS, utf8Length } from "../engine/session-bounds.js";
import { McpError } from "../wire/errors.js";
import { type Opener, ROOMY, recordOf } from "./helpers.js";

// A URI of exactly `bytes` UTF-8 bytes, distinct per `n`.
const uriOf = (n: number, bytes: number): string => {
  const head = `file:///${n}/`;
  return head + "x".repeat(bytes - head.length);
};

async function refusal(call: () => unknown): Promise<McpError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected an McpError, and the call succeeded");
}

type Sessions = EngineLifecycle & SessionStore;

/** What one session may keep of its client, bounded in bytes in every `SessionStore` (issue 24's attack on the engine). */
export function sessionBoundsCases(open: Opener<Sessions>["open"]): void {
  describe("what one session may keep", () => {
    it("loads a session at the same size however much it subscribed to (subscriptions are not in the record)", async () => {
      const [engine] = (await open()) as [Sessions];
      const record = recordOf();
      await engine.createSession(record, ROOMY);
      const before = JSON.stringify(await engine.loadSession(record.id));
      const uris = Array.from({ length: 15 }, (_, n) => uriOf(n, 2000));
      for (const uri of uris) await engine.changeSession(record.id, { kind: "subscribe", uri });
      expect(JSON.stringify(await engine.loadSession(record.id))).toBe(before);
      for (const uri of uris) expect(await engine.subscribers(uri)).toEqual([record.id]);
    });

    it("refuses a subscription URI longer than subscriptionUriBytes (UTF-8) with -32602; the session lives on", async () => {
      const [engine] = (await open()) as [Sessions];
      const record = recordOf();
      await engine.createSession(record, ROOMY);
      const limit = SESSION_BOUNDS.subscriptionUriBytes;
      await engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(1, limit) });
      // Fewer characters than the limit, more bytes: "é" is two.
      const wide = `file:///${"é".repeat(limit / 2)}`;
      expect(wide.length).toBeLessThan(limit);
      for (const uri of [uriOf(2, limit + 1), wide]) {
        const error = await refusal(() => engine.changeSession(record.id, { kind: "subscribe", uri }));
        expect(error.code).toBe(-32602);
        expect(error.message).toBe(
          `Invalid params: uri is longer than ${limit} bytes, the most a subscription may name`,
        );
        expect(await engine.subscribers(uri)).toEqual([]);
      }
      expect(await engine.subscribers(uriOf(1, limit))).toEqual([record.id]);
      expect((await engine.loadSession(record.id))?.id).toBe(record.id);
    });

    it("refuses a subscription past subscriptionBytes in all with -32000; an unsubscribe makes room again", async () => {
      const [engine] = (await open()) as [Sessions];
      const record = recordOf();
      await engine.createSession(record, ROOMY);
      const size = SESSION_BOUNDS.subscriptionUriBytes;
      const fit = Math.floor(SESSION_BOUNDS.subscriptionBytes / size);
      for (let n = 0; n < fit; n++) await engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(n, size) });
      // Again: a subscription held already costs nothing more.
      await engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(0, size) });
      const past = uriOf(fit, size);
      const error = await refusal(() => engine.changeSession(record.id, { kind: "subscribe", uri: past }));
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/^Too many resource subscriptions on this session/);
      expect(await engine.subscribers(past)).toEqual([]);
      await engine.changeSession(record.id, { kind: "unsubscribe", uri: uriOf(3, size) });
      await engine.changeSession(record.id, { kind: "subscribe", uri: past });
      expect(await engine.subscribers(past)).toEqual([record.id]);
      // Another session has room of its own.
      const other = recordOf();
      await engine.createSession(other, ROOMY);
      await engine.changeSession(other.id, { kind: "subscribe", uri: uriOf(fit + 1, size) });
      expect(await engine.subscribers(uriOf(fit + 1, size))).toEqual([other.id]);
    });

    it("keeps the client's info and capabilities bounded, whatever the record given carries", async () => {
      const [engine] = (await open()) as [Sessions];
      const capabilities = {
        junk: "x".repeat(1024 * 1024),
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: { listChanged: true },
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
      };
      const clientInfo = { name: "n".repeat(100_000), version: "1", title: "T", description: "d".repeat(100_000) };
      const record = recordOf({ clientInfo, clientCapabilities: capabilities });
      await engine.createSession(record, ROOMY);
      const loaded = await engine.loadSession(record.id);
      const { junk: _junk, ...wanted } = capabilities;
      expect(loaded?.clientCapabilities).toEqual(wanted);
      expect(loaded?.clientInfo).toEqual({
        name: "n".repeat(SESSION_BOUNDS.clientInfoChars),
        version: "1",
        title: "T",
      });
      // The whole record: its bounded parts, and the test principal's few bytes.
      const limit = SESSION_BOUNDS.capabilitiesBytes + 3 * 3 * SESSION_BOUNDS.clientInfoChars + 512;
      expect(utf8Length(JSON.stringify(loaded))).toBeLessThan(limit);
    });

    it("refuses a subscription past `subscriptions` in count with -32000", async () => {
      const [engine] = (await open()) as [Sessions];
      const record = recordOf();
      await engine.createSession(record, ROOMY);
      const max = SESSION_BOUNDS.subscriptions;
      await Promise.all(
        Array.from({ length: max }, (_, n) => engine.changeSession(record.id, { kind: "subscribe", uri: `f:${n}` })),
      );
      const error = await refusal(() => engine.changeSession(record.id, { kind: "subscribe", uri: "f:past" }));
      expect(error.code).toBe(-32000);
      expect(await engine.subscribers("f:past")).toEqual([]);
      expect(await engine.subscribers(`f:${max - 1}`)).toEqual([record.id]);
    });
  });
}
