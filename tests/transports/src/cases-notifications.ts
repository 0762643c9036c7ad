import { type Client, LOG_LEVEL_META_KEY, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { firstText, notesSince, type Peer, type SuiteContext, sent, until } from "./peer.js";

/** What the server says while a call runs: progress, logs; and cancellation. */
export function notificationCases(ctx: SuiteContext): void {
  const { modern } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  describe("notifications while a call runs", () => {
    it("reports progress through onprogress, in order", async () => {
      // The client drops its progress handler once the reply is read, so progress that arrives in one read with the
      // reply may be missed on a busy machine: call again (at most 20 times) until the handler has seen some.
      for (let attempt = 1; ; attempt++) {
        const mark = peer.wire.length;
        const seen: { progress: number; total?: number; message?: string }[] = [];
        const result = await client.callTool(
          { name: "count", arguments: { to: 4 } },
          { onprogress: (progress) => seen.push(progress) },
        );
        expect(firstText(result)).toBe("counted to 4");
        // Every notification precedes the reply on the wire.
        const progress = sent(peer, "notifications/progress", mark).map(({ progressToken: _, ...rest }) => rest);
        expect(progress).toEqual([1, 2, 3, 4].map((step) => ({ progress: step, total: 4, message: `step ${step}` })));
        expect(seen).toEqual(progress.slice(0, seen.length));
        if (seen.length > 0) return;
        if (attempt === 20)
          throw new Error("onprogress saw no progress in 20 calls, though the wire carried it each time");
      }
    });

    it(
      modern ? "logs when the request's _meta asks, at that level" : "logs at the level setLoggingLevel sets",
      async () => {
        const levels = (mark: number) => notesSince(peer, "notifications/message", mark).map((n) => n.level);
        if (!modern) {
          let mark = peer.notes.length;
          await client.callTool({ name: "chatty", arguments: {} });
          await until(() => (levels(mark).length >= 3 ? true : undefined), "three log messages");
          expect(levels(mark)).toEqual(["debug", "info", "warning"]);
          // The tool's name is the logger unless the handler names another; a message with data comes as both.
          expect(notesSince(peer, "notifications/message", mark).slice(1)).toEqual([
            { level: "info", logger: "chatty", data: "info line" },
            { level: "warning", logger: "fixture", data: { message: "heads up", data: { note: "warning line" } } },
          ]);
          await client.setLoggingLevel("warning");
          mark = peer.notes.length;
          const wireMark = peer.wire.length;
          await client.callTool({ name: "chatty", arguments: {} });
          await until(() => (levels(mark).length >= 1 ? true : undefined), "the warning");
          expect(sent(peer, "notifications/message", wireMark).map((params) => params.level)).toEqual(["warning"]);
          await client.setLoggingLevel("debug");
          return;
        }
        // 2026-07-28: logging/setLevel is gone; each request opts in through _meta.
        await expect(client.setLoggingLevel("debug")).rejects.toSatisfy(
          (error) => error instanceof SdkError && error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion,
        );
        let wireMark = peer.wire.length;
        await client.callTool({ name: "chatty", arguments: {} });
        expect(sent(peer, "notifications/message", wireMark)).toEqual([]);
        wireMark = peer.wire.length;
        let mark = peer.notes.length;
        await client.callTool({ name: "chatty", arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: "warning" } });
        expect(sent(peer, "notifications/message", wireMark).map((params) => params.level)).toEqual(["warning"]);
        await until(() => (levels(mark).length >= 1 ? true : undefined), "the warning");
        expect(notesSince(peer, "notifications/message", mark)).toEqual([
          { level: "warning", logger: "fixture", data: { message: "heads up", data: { note: "warning line" } } },
        ]);
        mark = peer.notes.length;
        await client.callTool({ name: "chatty", arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: "debug" } });
        await until(() => (levels(mark).length >= 3 ? true : undefined), "three log messages");
        expect(levels(mark)).toEqual(["debug", "info", "warning"]);
      },
    );

    it("stops a long call when the client aborts it", async () => {
      const count = async () =>
        (
          (await client.callTool({ name: "cancellations", arguments: {} })).structuredContent as {
            cancellations: number;
          }
        ).cancellations;
      const before = await count();
      const controller = new AbortController();
      const call = client.callTool(
        { name: "slow", arguments: {} },
        // The server says it started; abort then, while it waits.
        { signal: controller.signal, onprogress: () => controller.abort(new Error("the user changed their mind")) },
      );
      await expect(call).rejects.toThrow();
      await until(async () => ((await count()) > before ? true : undefined), "the server to see the cancellation");
      expect(await count()).toBe(before + 1);
      // The connection carries on.
      expect(firstText(await client.callTool({ name: "echo", arguments: { text: "after" } }))).toBe("after");
    });
  });
}
