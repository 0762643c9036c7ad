import type { Client, Tool } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { HIDDEN_TOOL, OTHER_URI, WATCHED_URI } from "./fixture-server.js";
import { notesSince, type Peer, type SuiteContext, until } from "./peer.js";

/** List changes and resource updates, and how listen streams end. */
export function changeCases(ctx: SuiteContext): void {
  const { modern, check, another, target } = ctx;
  let peer: Peer;
  let client: Client;
  beforeAll(() => {
    peer = ctx.peer();
    client = peer.client;
  });

  describe("changes", () => {
    const names = async (on: Client) =>
      (await on.listTools(undefined, { cacheMode: "bypass" })).tools.map((tool) => tool.name);
    const toggle = async (on: Client) =>
      ((await on.callTool({ name: "toggle", arguments: {} })).structuredContent as { enabled: boolean }).enabled;
    const changes = (mark: number) => notesSince(peer, "notifications/tools/list_changed", mark).length;

    it(
      modern ? "tells a listen stream that asked when tools change" : "sends tools/list_changed when tools change",
      async () => {
        const subscription = modern ? await client.listen({ toolsListChanged: true }) : undefined;
        if (modern) expect(subscription?.honoredFilter).toMatchObject({ toolsListChanged: true });
        const mark = peer.notes.length;
        const enabled = await toggle(client);
        await until(() => (changes(mark) >= 1 ? true : undefined), "tools/list_changed");
        expect((await names(client)).includes(HIDDEN_TOOL)).toBe(enabled);
        expect(await toggle(client)).toBe(!enabled);
        await until(() => (changes(mark) >= 2 ? true : undefined), "a second tools/list_changed");
        expect((await names(client)).includes(HIDDEN_TOOL)).toBe(!enabled);
        if (subscription) {
          await subscription.close();
          expect(await subscription.closed).toBe("local");
        }
      },
    );

    it("refreshes the tool list through the client's listChanged option", async () => {
      const lists: Tool[][] = [];
      const { client: watcher } = await another({
        client: {
          listChanged: {
            tools: {
              debounceMs: 0,
              onChanged: (error, tools) => {
                if (!error && tools) lists.push(tools);
              },
            },
          },
        },
      });
      const has = (tools: Tool[] | undefined) => tools?.some((tool) => tool.name === HIDDEN_TOOL);
      const enabled = await toggle(watcher);
      const first = await until(() => lists.find((tools) => has(tools) === enabled), "the refreshed list");
      expect(has(first)).toBe(enabled);
      await toggle(watcher);
      await until(() => (has(lists.at(-1)) === !enabled ? true : undefined), "the list refreshed back");
    });

    if (modern) {
      (target.ownServer ? check("graceful-shutdown") : it.skip)(
        "ends listen streams with their closing result when the server shuts down",
        async () => {
          const own = await target.ownServer!();
          try {
            const { client: listener } = await another({ transport: own.transport() });
            const subscription = await listener.listen({ toolsListChanged: true });
            await own.shutdown();
            expect(await subscription.closed).toBe("graceful");
          } finally {
            await own.shutdown();
          }
        },
      );
    }

    it(
      modern
        ? "tells a listen stream about the resources it named"
        : "tells a resources/subscribe subscriber about its resource",
      async () => {
        const updated = (mark: number) =>
          notesSince(peer, "notifications/resources/updated", mark).map((params) => params.uri);
        const touch = (uri: string) => client.callTool({ name: "touch", arguments: { uri } });
        let mark = peer.notes.length;
        if (modern) {
          const subscription = await client.listen({ resourceSubscriptions: [WATCHED_URI] });
          expect(subscription.honoredFilter).toMatchObject({ resourceSubscriptions: [WATCHED_URI] });
          await touch(OTHER_URI);
          await touch(WATCHED_URI);
          await until(() => updated(mark)[0], "resources/updated");
          expect(updated(mark)).toEqual([WATCHED_URI]);
          await subscription.close();
          expect(await subscription.closed).toBe("local");
          // A closed stream hears of nothing more: only the new one's resource comes through.
          const next = await client.listen({ resourceSubscriptions: [OTHER_URI] });
          mark = peer.notes.length;
          await touch(WATCHED_URI);
          await touch(OTHER_URI);
          await until(() => updated(mark)[0], "resources/updated for the other resource");
          expect(updated(mark)).toEqual([OTHER_URI]);
          await next.close();
          return;
        }
        await client.subscribeResource({ uri: WATCHED_URI });
        await touch(OTHER_URI);
        await touch(WATCHED_URI);
        await until(() => updated(mark)[0], "resources/updated");
        expect(updated(mark)).toEqual([WATCHED_URI]);
        // After unsubscribing, only the newly subscribed resource is heard of.
        await client.unsubscribeResource({ uri: WATCHED_URI });
        await client.subscribeResource({ uri: OTHER_URI });
        mark = peer.notes.length;
        await touch(WATCHED_URI);
        await touch(OTHER_URI);
        await until(() => updated(mark)[0], "resources/updated for the other resource");
        expect(updated(mark)).toEqual([OTHER_URI]);
        await client.unsubscribeResource({ uri: OTHER_URI });
      },
    );
  });
}
