import { rmSync } from "node:fs";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, within } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster } from "./cluster.js";
import { connectPeer, heardSince, type Peer, textOf } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built travel desk on one Redis, behind a
// round-robin proxy; the process a handshake-era session started on is killed (SIGKILL) while the official client
// holds its GET stream there and waits on a call running there.
const DATE = "2026-09-14";
// Short, so the call left running on the killed process is answered soon after.
const LEASE_MS = 1000;

let cluster: Cluster;
let peer: Peer | undefined;

// The client's reconnections, held while `holding`: its streams resume when the test says, not on a timer.
const held: (() => void)[] = [];
let holding = false;
const reconnectionScheduler = (reconnect: () => void) => {
  if (holding) held.push(reconnect);
  else setImmediate(reconnect);
};

beforeAll(async () => {
  cluster = await startCluster({ script: example("travel-desk"), env: { TOOLSMITH_LEASE_MS: String(LEASE_MS) } });
});
afterAll(async () => {
  await peer?.client.close();
  if (peer) rmSync(peer.root, { recursive: true, force: true });
  await cluster?.stop();
});

/** Pings until the proxy's next request goes to process `backend`. */
async function steerTo(on: Peer, backend: number): Promise<void> {
  while (cluster.proxy.peek() !== backend) await on.client.ping();
}

async function firstOffer(on: Peer): Promise<string> {
  const found = await on.client.callTool({ name: "search_flights", arguments: { from: "LHR", to: "JFK", date: DATE } });
  return (found.structuredContent as { offers: { id: string }[] }).offers[0]?.id ?? "";
}

describe("kill -9 of the process a session started on", () => {
  it("continues the session elsewhere, replays what its streams missed and answers the call that ran there", async () => {
    // The session starts on process 0 and its GET stream opens there too: process 1 sits out while it connects.
    cluster.proxy.rotate(1, false);
    const client = await connectPeer(cluster.url, "legacy", { reconnectionScheduler });
    peer = client;
    await until(() => cluster.proxy.routed.some((routed) => routed.method === "GET"), "the client's GET stream");
    cluster.proxy.rotate(1, true);
    const [initialize, , get] = cluster.proxy.routed;
    expect([initialize?.backend, get?.method, get?.backend]).toEqual([0, "GET", 0]);

    const booked = await client.client.callTool({
      name: "book_flight",
      arguments: { offerId: await firstOffer(client), passenger: "Ada Lovelace" },
    });
    const watched = `bookings://${(booked.structuredContent as { bookingId: string }).bookingId}`;
    await client.client.subscribeResource({ uri: watched });

    // A second booking runs on process 0 and waits there for the user's answer.
    let answer = () => {};
    client.hold.elicitation = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const mark = client.heard.length;
    const offer = await firstOffer(client);
    await steerTo(client, 0);
    const running = client.client
      .callTool({ name: "book_flight", arguments: { offerId: offer, passenger: "Grace Hopper" } })
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    await until(() => heardSince(client, "elicitation/create", mark).length === 1, "the question of the call on 0");

    holding = true;
    await cluster.kill(0);
    await until(() => held.length >= 2, "the client to want its GET stream and the call's stream back");

    // The next request lands on another process: the same session, no 404, no second initialize.
    const updates = () => heardSince(client, "notifications/resources/updated", mark).map((params) => params.uri);
    const checked = await client.client.callTool({ name: "check_in", arguments: { bookingId: watched.slice(11) } });
    expect(textOf(checked)).toMatch(/^Checked in/);
    expect(client.sent.filter((post) => post.methods.includes("initialize"))).toHaveLength(1);
    expect(client.sent.filter((post) => post.status >= 400)).toEqual([]);
    // Its update went to the session's events while no GET stream was open.
    expect(updates()).toEqual([]);

    // The user answers the question of the dead process: another process hears it and drops it (nothing waits).
    answer();
    await until(() => client.sent.filter((post) => post.methods.includes("(answer)")).length >= 2, "the answer");

    holding = false;
    for (const reconnect of held.splice(0)) reconnect();
    await until(() => updates().length >= 1, "the missed resources/updated, replayed on the resumed GET stream");
    const outcome = await within(running, "the answer to the call that ran on the killed process");
    expect("error" in outcome && outcome.error).toBeInstanceOf(ProtocolError);
    const error = (outcome as { error: ProtocolError }).error;
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/stopped/);
    expect(updates()).toEqual([watched]);

    // The killed process back (on a new port): it serves the session it never saw start as well.
    await cluster.restart(0);
    await steerTo(client, 0);
    const from = cluster.proxy.routed.length;
    const listed = await client.client.callTool({ name: "list_bookings", arguments: {} });
    expect(cluster.proxy.routed[from]?.backend).toBe(0);
    expect((listed.structuredContent as { bookings: unknown[] }).bookings).toHaveLength(1);
    expect(client.sent.filter((post) => post.status >= 400)).toEqual([]);
  });
});
