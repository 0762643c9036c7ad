import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type Cluster, example, startCluster, steerTo } from "./cluster.js";
import { connectPeer, type Mode, type Peer } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): every example's --http mode, as the root README runs it (REDIS_URL and
// TOOLSMITH_STATE_KEY), serves one client through two processes behind the round-robin proxy, in both eras. The
// travel desk and the conformance server have files of their own.
const CALLS: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  quickstart: { name: "add", arguments: { a: 1, b: 2 } },
  "word-tools": { name: "word_count", arguments: { text: "one two" } },
  wiretap: { name: "show_wire", arguments: {} },
  notes: { name: "search", arguments: { query: "note" } },
  "issue-tracker": { name: "list_issues", arguments: {} },
  workbench: { name: "words.word_count", arguments: { text: "one two" } },
  poll: { name: "show_poll", arguments: {} },
};
const MODES: Mode[] = ["legacy", { pin: "2026-07-28" }];

let cluster: Cluster | undefined;
let peer: Peer | undefined;

afterEach(async () => {
  await peer?.client.close();
  if (peer) rmSync(peer.root, { recursive: true, force: true });
  peer = undefined;
  await cluster?.stop();
  cluster = undefined;
});

/** Each of the cluster's two processes serves `call` once, wherever the client's session began. */
async function callOnEach(on: Cluster, client: Peer["client"], call: (typeof CALLS)[string], mode: Mode) {
  for (const backend of [0, 1]) {
    await steerTo(on, client, mode, backend);
    const from = on.proxy.routed.length;
    const result = await client.callTool(call);
    expect(result.isError ?? false, `${call.name} on process ${backend}`).toBe(false);
    expect(on.proxy.routed[from]?.backend, `where ${call.name} ran`).toBe(backend);
  }
}

describe("every example's --http mode as two processes on one Redis behind a round-robin proxy", () => {
  for (const [name, call] of Object.entries(CALLS)) {
    it(`${name}: a tool call served by each process, in both eras`, async () => {
      const started = await startCluster({ script: example(name), processes: 2 });
      cluster = started;
      for (const mode of MODES) {
        const connected = await connectPeer(started.url, mode);
        peer = connected;
        await callOnEach(started, connected.client, call, mode);
        await connected.client.close();
        rmSync(connected.root, { recursive: true, force: true });
        peer = undefined;
      }
    });
  }
});
