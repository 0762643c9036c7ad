import { describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { backend, post, proxyFor } from "./backends.test-util.js";

// No probe between the start's and the end of a test (60 s apart): only the requests can bring a backend back.
const QUIET = { healthIntervalMs: 60_000 };

/** A free port with nothing listening on it (yet). */
async function freePort(): Promise<number> {
  const probe = await backend("probe");
  await probe.stop();
  return Number(new URL(probe.url).port);
}

describe("with no backend in rotation", () => {
  it("still tries them: a proxy started before its backends serves the first request once they listen", async () => {
    const ports = [await freePort(), await freePort()];
    const proxy = await proxyFor(
      ports.map((port) => ({ url: `http://127.0.0.1:${port}/mcp` })),
      QUIET,
    );
    await until(() => proxy.health().every((health) => !health.up), "both refused probes");
    expect(proxy.health().map((health) => health.reason)).toEqual(["refused", "refused"]);
    await backend("b", ports[1]);
    // a refuses (nothing reached it), so the request goes on to b.
    expect(await post(proxy.url, "first")).toMatchObject({ status: 200, text: "b:first" });
    expect(proxy.routed.map((routed) => [routed.backend, routed.refused])).toEqual([[1, [0]]]);
    // b answered, so it was probed at once and is back in rotation, with no wait for the next interval.
    await until(() => proxy.health()[1]?.up === true, "b back in rotation");
    expect(proxy.peek()).toBe(1);
  });

  it("tries one out for a refused connection before one whose probes timed out, and both before refusing", async () => {
    const slow = await backend("slow");
    const port = await freePort();
    const proxy = await proxyFor([slow, { url: `http://127.0.0.1:${port}/mcp` }], {
      ...QUIET,
      healthTimeoutMs: 200,
      unhealthyAfter: 1,
    });
    slow.hung = true;
    proxy.replace(0, slow.url);
    await until(() => proxy.health().every((health) => !health.up), "both out of rotation");
    expect(proxy.health().map((health) => health.reason)).toEqual(["timed out", "refused"]);
    // A load spike is over: the slow one answers again, though no probe has said so.
    slow.hung = false;
    expect(await post(proxy.url, "spike")).toMatchObject({ status: 200, text: "slow:spike" });
    expect(proxy.routed.map((routed) => [routed.backend, routed.refused])).toEqual([[0, [1]]]);
  });

  it("cuts what it sent to a backend out for timed-out probes when its next probe times out too", async () => {
    const hung = await backend("hung");
    const proxy = await proxyFor([hung], { healthTimeoutMs: 200, unhealthyAfter: 1 });
    hung.hung = true;
    await until(() => proxy.health()[0]?.up === false, "the hung backend out of rotation");
    expect(await post(proxy.url, "never answered")).toMatchObject({ status: 504, text: "backend stopped answering\n" });
    expect(hung.seen.length).toBe(1);
  });
});
