import { type Client, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askingCases } from "./cases-asking.js";
import { changeCases } from "./cases-changes.js";
import { edgeCases } from "./cases-edges.js";
import { notificationCases } from "./cases-notifications.js";
import { resourceAndPromptCases } from "./cases-resources-prompts.js";
import { storeCases } from "./cases-store.js";
import { taskCases } from "./cases-tasks.js";
import { toolCases } from "./cases-tools.js";
import {
  type ConnectOptions,
  connectPeer,
  ERAS,
  type EraName,
  type Peer,
  type SuiteContext,
  type TransportTarget,
} from "./peer.js";

export type { TransportTarget } from "./peer.js";

/** Every server feature, in each era, over one transport, driven by the official client. */
export function transportSuite(name: string, target: TransportTarget): void {
  describe.each(ERAS)(`${name}: %s`, (_era, mode) => {
    const modern = mode !== "legacy";
    const era: EraName = modern ? "2026-07-28" : "handshake";
    // A known failure of this transport in this era runs as it.fails.
    const check = (key: string) => (target.knownFailures?.[key]?.includes(era) ? it.fails : it);
    const notFound = modern ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.ResourceNotFound;
    const extra: Client[] = [];
    let peer: Peer;
    let client: Client;

    // One client for the block (over stdio, one server process); tests that need their own open it.
    beforeAll(async () => {
      peer = await connectPeer(target, mode);
      client = peer.client;
    });
    afterAll(async () => {
      await Promise.all([peer?.client.close(), ...extra.map((other) => other.close())]);
    });
    async function another(options: ConnectOptions = {}): Promise<Peer> {
      const other = await connectPeer(target, mode, options);
      extra.push(other.client);
      return other;
    }
    // The limit tests share a client of their own: a transport that breaks there breaks nothing else.
    let limitsPeer: Promise<Peer> | undefined;
    const limits = async () => {
      limitsPeer ??= another();
      return (await limitsPeer).client;
    };

    it("negotiates the era and advertises every capability", () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(modern ? "2026-07-28" : "2025-11-25");
      expect(client.getProtocolEra()).toBe(modern ? "modern" : "legacy");
      expect(client.getServerVersion()).toMatchObject({ name: "transport-fixture", version: "1.0.0" });
      expect(client.getServerCapabilities()).toMatchObject({
        logging: {},
        completions: {},
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      });
    });

    it(modern ? "answers server/discover" : "answers ping", async () => {
      if (modern) {
        const discovered = await client.discover();
        expect(discovered).toMatchObject({
          supportedVersions: expect.arrayContaining(["2026-07-28"]),
          capabilities: expect.objectContaining({ tools: { listChanged: true } }),
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "transport-fixture", version: "1.0.0" } },
        });
      } else {
        expect(await client.ping()).toEqual({});
      }
    });

    const ctx: SuiteContext = {
      target,
      modern,
      notFound,
      check,
      peer: () => peer,
      another,
      limits,
    };
    toolCases(ctx);
    resourceAndPromptCases(ctx);
    notificationCases(ctx);
    askingCases(ctx);
    changeCases(ctx);
    storeCases(ctx);
    taskCases(ctx);
    edgeCases(ctx);
  });
}
