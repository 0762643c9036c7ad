import type { Client } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { BOARD_URI } from "./fixture-server.js";
import { notesSince, type Peer, type SuiteContext, until } from "./peer.js";

/** The server's store (`ctx.store`): shared by every client of the server, a session's own, a resource fed by a key. */
export function storeCases(ctx: SuiteContext): void {
  const { modern, another, target } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });
  const text = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as { text: string }[])[0]?.text;

  describe("store", () => {
    it("keeps what one client writes for every client of the server process", async () => {
      const value = `v-${crypto.randomUUID()}`;
      expect(text(await client.callTool({ name: "store_put", arguments: { key: "shared", value } }))).toBe("kept");
      // Over stdio each client has a server process (and a memory engine) of its own; over HTTP they share one.
      const reader = target.ownServer ? (await another()).client : client;
      expect(text(await reader.callTool({ name: "store_get", arguments: { key: "shared" } }))).toBe(value);
    });

    it(
      modern
        ? "refuses ctx.store.session in 2026-07-28, which has no session, as the tool's error"
        : "keeps ctx.store.session per session",
      async () => {
        const visits = () => client.callTool({ name: "session_visits", arguments: {} });
        if (modern) {
          const refused = await visits();
          expect(refused.isError).toBe(true);
          expect(text(refused)).toMatch(/needs a handshake-era session/);
          return;
        }
        const first = Number(text(await visits()));
        expect(Number(text(await visits()))).toBe(first + 1);
        const { client: other } = await another();
        expect(text(await other.callTool({ name: "session_visits", arguments: {} }))).toBe("1");
      },
    );

    it("tells a subscriber of a resource fed by a store key when the key changes", async () => {
      const updated = (mark: number) =>
        notesSince(peer, "notifications/resources/updated", mark).map((params) => params.uri);
      const mark = peer.notes.length;
      const subscription = modern ? await client.listen({ resourceSubscriptions: [BOARD_URI] }) : undefined;
      if (!modern) await client.subscribeResource({ uri: BOARD_URI });
      await client.callTool({ name: "store_put", arguments: { key: "not-the-board", value: "x" } });
      await client.callTool({ name: "store_put", arguments: { key: "board", value: "pinned" } });
      await until(() => updated(mark)[0], "resources/updated for the board");
      expect(updated(mark)).toEqual([BOARD_URI]);
      const read = await client.readResource({ uri: BOARD_URI });
      expect(read.contents).toEqual([{ uri: BOARD_URI, mimeType: "text/plain", text: "pinned" }]);
      if (subscription) await subscription.close();
      else await client.unsubscribeResource({ uri: BOARD_URI });
    });
  });
}
