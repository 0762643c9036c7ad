import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster, steerTo } from "./cluster.js";
import { connectPeer, heardSince, type Peer } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built travel desk on one Redis, behind a
// round-robin proxy; a 2026-07-28 client's listen streams, each held by one process, hear what the others announce.
const DATE = "2026-09-14";

let cluster: Cluster;
let peer: Peer;

beforeAll(async () => {
  cluster = await startCluster({ script: example("travel-desk") });
  peer = await connectPeer(cluster.url, { pin: "2026-07-28" });
});
afterAll(async () => {
  await peer?.client.close();
  if (peer) rmSync(peer.root, { recursive: true, force: true });
  await cluster?.stop();
});

/** The process holding the latest listen stream. */
const listener = () => cluster.proxy.routed.findLast((routed) => routed.mcpMethod === "subscriptions/listen")?.backend;

/** Until the proxy's next request goes to process `backend`. */
const steer = (backend: number) => steerTo(cluster, peer.client, { pin: "2026-07-28" }, backend);

/** Call a tool on process `backend`. */
async function callOn(backend: number, name: string, args: Record<string, unknown>) {
  await steer(backend);
  const from = cluster.proxy.routed.length;
  const result = await peer.client.callTool({ name, arguments: args });
  expect(cluster.proxy.routed[from], `where ${name} ran`).toMatchObject({ mcpName: name, backend });
  return result;
}

describe("three processes behind a round-robin proxy, 2026-07-28", () => {
  it("tells listen streams of list changes and resource updates made on other processes, exactly once", async () => {
    const { client } = peer;
    const mark = peer.heard.length;
    const listChanges = () => heardSince(peer, "notifications/tools/list_changed", mark).length;
    const updates = () => heardSince(peer, "notifications/resources/updated", mark).map((params) => params.uri);

    const tools = await client.listen({ toolsListChanged: true });
    expect(tools.honoredFilter).toMatchObject({ toolsListChanged: true });
    const toolsOn = listener() as number;
    const [second, third] = [(toolsOn + 1) % 3, (toolsOn + 2) % 3];
    // The first booking lists cancel_booking: its input_required round is answered wherever the retry lands.
    const found = await client.callTool({ name: "search_flights", arguments: { from: "LHR", to: "JFK", date: DATE } });
    const [offer] = (found.structuredContent as { offers: { id: string }[] }).offers;
    // The call and its retry (with the answer) run on the two other processes.
    const booked = await callOn(second, "book_flight", { offerId: offer?.id, passenger: "Ada" });
    const id = (booked.structuredContent as { bookingId: string }).bookingId;
    await until(() => listChanges() >= 1, "tools/list_changed on the listen stream");

    await steer(second);
    const watch = await client.listen({ resourceSubscriptions: [`bookings://${id}`] });
    expect(watch.honoredFilter).toMatchObject({ resourceSubscriptions: [`bookings://${id}`] });
    expect(listener()).toBe(second);
    await callOn(third, "check_in", { bookingId: id });
    await until(() => updates().length >= 1, "resources/updated on the listen stream");
    // Cancelling the only booking updates it and unlists cancel_booking: once both are heard, no copy of the
    // earlier ones was still on its way.
    await callOn(third, "cancel_booking", { bookingId: id });
    await until(() => listChanges() >= 2 && updates().length >= 2, "the second list change and update");
    expect(listChanges()).toBe(2);
    expect(updates()).toEqual([`bookings://${id}`, `bookings://${id}`]);

    await tools.close();
    await watch.close();
  });
});
