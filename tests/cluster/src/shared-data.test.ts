import { rmSync } from "node:fs";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster, steerTo } from "./cluster.js";
import { connectPeer, type Mode, type Peer } from "./peer.js";
import { SHARED_DATA, type SharedData } from "./shared-data.js";

// Build first (npx -y pnpm@12.4.2 run build): each example keeping its own data as three processes on one Redis
// behind the round-robin proxy, driven by the official client in both eras: an item written through any process is
// read through every process, and a process killed (SIGKILL) while writes run loses none that was acknowledged.
const MODES: readonly [string, Mode, number][] = [
  // The era, the client's negotiation, and which process is killed in it.
  ["handshake era", "legacy", 0],
  ["2026-07-28", { pin: "2026-07-28" }, 1],
];
// Short, so a handshake-era call cut by the kill is answered (with an error) soon after.
const LEASE_MS = "1000";

describe.each(SHARED_DATA.map((data) => [data.example, data] as const))("%s as three processes", (_name, data) => {
  let cluster: Cluster;
  const peers: Peer[] = [];
  // Item numbers across the whole file, so every write's title differs.
  let next = 0;

  beforeAll(async () => {
    cluster = await startCluster({ script: example(data.example), env: { TOOLSMITH_LEASE_MS: LEASE_MS } });
  });
  afterAll(async () => {
    for (const peer of peers) {
      await peer.client.close();
      rmSync(peer.root, { recursive: true, force: true });
    }
    await cluster?.stop();
  });

  async function connect(mode: Mode): Promise<Peer> {
    const peer = await connectPeer(cluster.url, mode);
    peers.push(peer);
    return peer;
  }

  /** What process `backend` holds, read there. */
  async function readOn(peer: Peer, mode: Mode, backend: number, on: SharedData): Promise<string[]> {
    await steerTo(cluster, peer.client, mode, backend);
    const from = cluster.proxy.routed.length;
    const seen = await on.read(peer.client);
    expect(cluster.proxy.routed[from]?.backend, "where the read ran").toBe(backend);
    return seen;
  }

  describe.each(MODES)("%s", (_era, mode, victim) => {
    it("what any process writes, every process reads", async () => {
      const peer = await connect(mode);
      const written: string[] = [];
      for (const backend of [0, 1, 2]) {
        await steerTo(cluster, peer.client, mode, backend);
        const from = cluster.proxy.routed.length;
        written.push(await data.write(peer.client, next++, {}));
        expect(cluster.proxy.routed[from]?.backend, "where the write ran").toBe(backend);
        for (const reader of [0, 1, 2])
          expect(await readOn(peer, mode, reader, data)).toEqual(expect.arrayContaining(written));
      }
      expect(new Set(written).size, `tokens of acknowledged writes: ${written.join(" ")}`).toBe(written.length);
    });

    it("a process killed (kill -9) while writes run loses nothing that was acknowledged", async () => {
      const peer = await connect(mode);
      const writers = data.writers ?? 6;
      const around = data.writesAround ?? 12;
      const acked: string[] = [];
      const failed: unknown[] = [];
      let running = 0;
      let stop = false;
      const writer = async () => {
        while (!stop) {
          const n = next++;
          running++;
          try {
            acked.push(await data.write(peer.client, n, {}));
          } catch (error) {
            failed.push(error);
            // Only the writes the kill cut may fail; more is a failure of its own, not a reason to go on.
            if (failed.length > writers) stop = true;
          } finally {
            running--;
          }
        }
      };
      const loops = Array.from({ length: writers }, writer);
      await until(() => acked.length >= around && running > 0, `${around} writes acknowledged, more running`);
      const killedAt = acked.length;
      await cluster.kill(victim);
      await until(() => stop || acked.length >= killedAt + around, `${around} more writes after the kill`);
      stop = true;
      await Promise.all(loops);

      expect(failed.length, `writes that failed: ${failed.map(String).join("; ")}`).toBeLessThanOrEqual(writers);
      // Each write the kill cut is answered, in both eras, none left to the client's own time-out (60 s): refused at
      // once when the process died before its answer began (the proxy's 502), else -32603, by the proxy in
      // 2026-07-28, and in the handshake era on the stream the client resumes, by another process once the dead
      // one's lease lapses. A question's answer the dead process held goes to another (the proxy sends it again).
      const timedOut = failed.filter(
        (error) => error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout,
      );
      expect(timedOut.map(String)).toEqual([]);
      expect(new Set(acked).size, `tokens of acknowledged writes: ${acked.join(" ")}`).toBe(acked.length);
      for (const backend of [0, 1, 2].filter((index) => index !== victim)) {
        expect(await readOn(peer, mode, backend, data)).toEqual(expect.arrayContaining(acked));
      }
      // Back on a new port, the killed process reads them too.
      await cluster.restart(victim);
      expect(await readOn(peer, mode, victim, data)).toEqual(expect.arrayContaining(acked));
    });
  });
});
