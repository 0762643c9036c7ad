import { rmSync } from "node:fs";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, within } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster, steerTo } from "./cluster.js";
import { connectPeer, type Peer } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built travel desk on one Redis behind the
// round-robin proxy, which is not told of the kill: its health checks and the refused connections tell it.
const DATE = "2026-09-14";

let cluster: Cluster;
let modern: Peer;
let legacy: Peer;

beforeAll(async () => {
  cluster = await startCluster({ script: example("travel-desk"), env: { TOOLSMITH_LEASE_MS: "1000" } });
  modern = await connectPeer(cluster.url, { pin: "2026-07-28" });
  legacy = await connectPeer(cluster.url, "legacy");
  await until(() => cluster.proxy.routed.some((routed) => routed.method === "GET"), "the legacy client's GET stream");
});
afterAll(async () => {
  await modern?.client.close();
  await legacy?.client.close();
  for (const peer of [modern, legacy]) if (peer) rmSync(peer.root, { recursive: true, force: true });
  await cluster?.stop();
});

const search = (includeCharters: boolean, onprogress?: () => void) =>
  modern.client.callTool(
    { name: "search_flights", arguments: { from: "LHR", to: "JFK", date: DATE, includeCharters } },
    onprogress ? { onprogress } : {},
  );

describe("kill -9 of a process behind the proxy", () => {
  it("answers the 2026-07-28 call it cut with an error, sends nothing more there, and takes it back once restarted", async () => {
    await steerTo(cluster, modern.client, { pin: "2026-07-28" }, 0);
    let progressed = 0;
    // The charter airline answers in 30 s: the call is still running on process 0 when it is killed.
    const running = search(true, () => progressed++).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await until(() => progressed >= 5, "the search on process 0 to wait for the charter airline");
    expect(cluster.proxy.routed.at(-1)).toMatchObject({ backend: 0, mcpName: "search_flights" });

    const marks = [modern.sent.length, legacy.sent.length, cluster.proxy.routed.length];
    await cluster.kill(0);
    // Told, rather than left to its own time-out (60 s): the proxy answers the request the dead process held.
    const outcome = await within(running, "the answer to the call cut by the kill");
    expect("error" in outcome && outcome.error).toBeInstanceOf(ProtocolError);
    const error = (outcome as { error: ProtocolError }).error;
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/stopped before it answered/);

    // Whatever comes next, from either era: none refused, none sent to the dead process.
    for (let i = 0; i < 6; i++) {
      await modern.client.listTools(undefined, { cacheMode: "bypass" });
      await legacy.client.ping();
    }
    expect((await search(false)).isError).toBeFalsy();
    expect(
      [...modern.sent.slice(marks[0]), ...legacy.sent.slice(marks[1])].filter((post) => post.status >= 400),
    ).toEqual([]);
    expect(cluster.proxy.routed.slice(marks[2]).filter((routed) => routed.backend === 0)).toEqual([]);
    expect(cluster.proxy.health()[0]).toMatchObject({ up: false });

    // Back on a new port: in rotation once a probe there succeeded, and serving both eras.
    // A client's own request (a GET stream it resumes) may take the turn between the steering and the call: steered
    // again until the call itself lands on process 0.
    await cluster.restart(0);
    await until(async () => {
      await steerTo(cluster, modern.client, { pin: "2026-07-28" }, 0);
      const from = cluster.proxy.routed.length;
      expect((await search(false)).isError).toBeFalsy();
      return cluster.proxy.routed.slice(from).some((r) => r.backend === 0 && r.mcpName === "search_flights");
    }, "a search_flights call served by the restarted process 0");
    await until(async () => {
      await steerTo(cluster, legacy.client, "legacy", 0);
      const from = cluster.proxy.routed.length;
      await legacy.client.ping();
      return cluster.proxy.routed.slice(from).some((r) => r.backend === 0 && r.method === "POST");
    }, "a handshake-era ping served by the restarted process 0");
  });
});
