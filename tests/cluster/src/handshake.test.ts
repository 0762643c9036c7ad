import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster } from "./cluster.js";
import { connectPeer, heardSince, type Peer, textOf } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built travel desk on one Redis, behind a
// round-robin proxy with no affinity, serve one handshake-era client of the official SDK as one server.
const DATE = "2026-09-14";

let cluster: Cluster;
let peer: Peer;

beforeAll(async () => {
  cluster = await startCluster({ script: example("travel-desk") });
  peer = await connectPeer(cluster.url, "legacy");
  await until(() => cluster.proxy.routed.some((routed) => routed.method === "GET"), "the client's GET stream");
});
afterAll(async () => {
  await peer?.client.close();
  if (peer) rmSync(peer.root, { recursive: true, force: true });
  await cluster?.stop();
});

/** The backends this (only) client's requests went to since `from`. */
const backendsOf = (from: number) => cluster.proxy.routed.slice(from).map((routed) => routed.backend);

/** Pings until the proxy's next request goes to process `backend`. */
async function steerTo(backend: number): Promise<void> {
  while (cluster.proxy.peek() !== backend) await peer.client.ping();
}

async function book(passenger: string): Promise<string> {
  const found = await peer.client.callTool({
    name: "search_flights",
    arguments: { from: "LHR", to: "JFK", date: DATE },
  });
  const [offer] = (found.structuredContent as { offers: { id: string }[] }).offers;
  const booked = await peer.client.callTool({ name: "book_flight", arguments: { offerId: offer?.id, passenger } });
  return (booked.structuredContent as { bookingId: string }).bookingId;
}

describe("three processes behind a round-robin proxy, handshake era", () => {
  it("initializes on one process, takes the GET stream on another and calls on every one", async () => {
    const [initialize, initialized, get] = cluster.proxy.routed;
    expect([initialize?.method, initialized?.method, get?.method]).toEqual(["POST", "POST", "GET"]);
    expect(new Set([initialize?.backend, initialized?.backend, get?.backend]).size).toBe(3);
    const from = cluster.proxy.routed.length;
    for (let call = 0; call < 3; call++) {
      const listed = await peer.client.callTool({ name: "list_bookings", arguments: {} });
      expect(listed.isError).toBeFalsy();
    }
    expect(new Set(backendsOf(from))).toEqual(new Set([0, 1, 2]));
    // One session all along: one initialize, and no request was refused.
    expect(peer.sent.filter((post) => post.methods.includes("initialize"))).toHaveLength(1);
    expect(peer.sent.filter((post) => post.status >= 400)).toEqual([]);
  });

  it("sends each call's progress and logs, at the level logging/setLevel set on another process", async () => {
    await steerTo(0);
    await peer.client.setLoggingLevel("warning");
    const search = async (on: number) => {
      await steerTo(on);
      const from = cluster.proxy.routed.length;
      const mark = peer.heard.length;
      const progress: number[] = [];
      // Aurora Air does not fly to Reykjavik: one warning per search, and info lines as it goes.
      await peer.client.callTool(
        { name: "search_flights", arguments: { from: "LHR", to: "KEF", date: DATE } },
        { onprogress: (note) => progress.push(note.progress) },
      );
      expect(backendsOf(from)[0], "where the search ran").toBe(on);
      const levels = heardSince(peer, "notifications/message", mark).map((log) => log.level);
      return { progress, levels };
    };
    // Process 0 was told the level; 1 and 2 were not, by this client.
    const warned = [await search(0), await search(1), await search(2)];
    expect(warned).toEqual([0, 1, 2].map(() => ({ progress: [0, 1, 2, 3, 4], levels: ["warning"] })));
    await steerTo(2);
    await peer.client.setLoggingLevel("info");
    const told = [await search(0), await search(1), await search(2)];
    expect(told.map(({ levels }) => levels)).toEqual([0, 1, 2].map(() => ["info", "warning"]));
  });

  it("asks the client (elicitation, sampling, roots) from one process and hears its answer through another", async () => {
    const mark = peer.heard.length;
    const id = await book("Ada Lovelace");
    expect(id).toMatch(/^TD-\d+$/);
    const summary = await peer.client.callTool({ name: "trip_summary", arguments: { bookingId: id } });
    expect(summary.structuredContent).toMatchObject({ writtenBy: "cluster-model" });
    const saved = await peer.client.callTool({ name: "save_itinerary", arguments: { bookingId: id } });
    expect(saved.structuredContent).toMatchObject({ saved: true });
    expect(existsSync(join(peer.root, "itineraries", `${id}.ics`))).toBe(true);
    const asked = peer.heard
      .slice(mark)
      .map((heard) => heard.method)
      .filter((method) => !method.startsWith("notif"));
    expect(asked).toEqual(["elicitation/create", "sampling/createMessage", "roots/list"]);
    // Each answer is a POST of its own: round robin sends it to another process than the one asking. The tap records
    // a POST once its 202 is back, which may come after the call's result (the server takes the answer as it reads it).
    const answers = () => peer.sent.filter((post) => post.methods.includes("(answer)"));
    await until(() => answers().length >= 3, "the three answer POSTs answered");
    expect(answers().every((post) => post.status === 202)).toBe(true);
  });

  it("tells a resources/subscribe subscriber of an update made by a call on another process, exactly once", async () => {
    const first = await book("Grace Hopper");
    const second = await book("Alan Turing");
    await peer.client.subscribeResource({ uri: `bookings://${first}` });
    await peer.client.subscribeResource({ uri: `bookings://${second}` });
    const mark = peer.heard.length;
    const updated = () => heardSince(peer, "notifications/resources/updated", mark).map((params) => params.uri);
    expect(textOf(await peer.client.callTool({ name: "check_in", arguments: { bookingId: first } }))).toMatch(
      /^Checked in/,
    );
    await until(() => updated().length >= 1, "resources/updated for the first booking");
    // A later update of the other booking, once heard, shows no second copy of the first was on its way.
    await peer.client.callTool({ name: "check_in", arguments: { bookingId: second } });
    await until(() => updated().includes(`bookings://${second}`), "resources/updated for the second booking");
    expect(updated()).toEqual([`bookings://${first}`, `bookings://${second}`]);
  });
});
