import { describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { backend, post, proxyFor } from "./backends.test-util.js";

describe("the round-robin proxy", () => {
  it("sends request i to backend i mod N, with its body, path and headers, whatever its session", async () => {
    const backends = [await backend("a"), await backend("b"), await backend("c")];
    const proxy = await proxyFor(backends);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await post(proxy.url, `call ${i}`));
    expect(answers.map((answer) => answer.text)).toEqual(["a:call 0", "b:call 1", "c:call 2", "a:call 3"]);
    expect(proxy.routed.map((routed) => [routed.backend, routed.mcpMethod, routed.refused])).toEqual([
      [0, "tools/call", []],
      [1, "tools/call", []],
      [2, "tools/call", []],
      [0, "tools/call", []],
    ]);
    const [first] = backends[0]?.seen ?? [];
    expect(first?.url).toBe("/mcp");
    expect(first?.headers["mcp-method"]).toBe("tools/call");
    // The backend's own Host (its DNS rebinding check), the client's as X-Forwarded-Host, its address as -For.
    expect(first?.headers.host).toBe(new URL(backends[0]?.url ?? "").host);
    expect(first?.headers["x-forwarded-host"]).toBe(new URL(proxy.url).host);
    expect(first?.headers["x-forwarded-for"]).toBe("127.0.0.1");
  });

  it("skips a backend out of rotation, and sends to it again once back", async () => {
    const proxy = await proxyFor([await backend("a"), await backend("b")]);
    proxy.rotate(0, false);
    expect(proxy.peek()).toBe(1);
    expect((await post(proxy.url, "1")).backend).toBe("b");
    expect((await post(proxy.url, "2")).backend).toBe("b");
    proxy.rotate(0, true);
    const both = [(await post(proxy.url, "3")).backend, (await post(proxy.url, "4")).backend];
    expect(both.sort()).toEqual(["a", "b"]);
    proxy.rotate(0, false);
    proxy.rotate(1, false);
    expect(await post(proxy.url, "5")).toMatchObject({ status: 503, text: "every backend drained\n" });
  });

  it("streams an SSE event before the backend ends the response, and cuts a session's stream when the backend dies", async () => {
    const sse = await backend("a");
    const proxy = await proxyFor([sse]);
    const response = await fetch(proxy.url, { headers: { accept: "text/event-stream", "mcp-session-id": "s1" } });
    expect(response.headers.get("mcp-session-id")).toBe("a");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("id: 1\ndata: from a\n\n");
    sse.server.closeAllConnections();
    // Its server answers it on the stream the client resumes: the proxy adds nothing.
    const end = await reader.read().then(
      (result) => (result.done ? "ended" : new TextDecoder().decode(result.value)),
      () => "cut",
    );
    expect(end).toBe("cut");
  });

  it("answers each request of a POST of no session whose SSE answer was cut, with a JSON-RPC error, and ends the stream", async () => {
    const sse = await backend("a");
    const proxy = await proxyFor([sse]);
    const response = await fetch(proxy.url, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("id: 1\ndata: from a\n\n");
    sse.server.closeAllConnections();
    let rest = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += decoder.decode(read.value);
    const data = rest.split("\n").filter((line) => line.startsWith("data: "));
    expect(data.map((line) => JSON.parse(line.slice(6)))).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32603, message: expect.stringMatching(/stopped before it answered/) } },
    ]);
  });

  it("writes that error with the request's id exactly as sent, a number past 2^53 included", async () => {
    const sse = await backend("a");
    const proxy = await proxyFor([sse]);
    const response = await fetch(proxy.url, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"slow"}}',
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    await reader.read();
    sse.server.closeAllConnections();
    let rest = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += decoder.decode(read.value);
    expect(rest).toMatch(
      /^event: message\ndata: \{"jsonrpc":"2\.0","id":12345678901234567890,"error":\{"code":-32603,/,
    );
  });

  it("sends a request whose backend refused the connection to the next one, body and all, and takes the refuser out at once", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    // No probe between the start's and the end of the test: only the refused request can tell.
    const proxy = await proxyFor([a, b], { healthIntervalMs: 60_000 });
    await until(() => a.healthz.probes > 0 && b.healthz.probes > 0, "each backend's first probe");
    await a.stop();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await post(proxy.url, `call ${i}`));
    expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
      [200, "b:call 0"],
      [200, "b:call 1"],
      [200, "b:call 2"],
      [200, "b:call 3"],
    ]);
    expect(proxy.routed.map((routed) => [routed.backend, routed.refused])).toEqual([
      [1, [0]],
      [1, []],
      [1, []],
      [1, []],
    ]);
    expect(proxy.health()[0]).toMatchObject({ up: false, reason: "ECONNREFUSED" });
  });

  it("never sends again a request that reached its backend: one that died holding it is answered 502", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    const proxy = await proxyFor([a, b]);
    a.dieOnRequest = true;
    expect(await post(proxy.url, "pay once")).toMatchObject({ status: 502, text: "backend unreachable\n" });
    expect([a.seen.length, b.seen.length]).toEqual([1, 0]);
  });

  it("gives the next backend a POST of only answers that a backend died holding, and nothing else", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    const proxy = await proxyFor([a, b]);
    a.dieOnRequest = true;
    const answer = JSON.stringify({ jsonrpc: "2.0", id: "node-1-4", result: { action: "accept" } });
    const answers = JSON.stringify([JSON.parse(answer), { jsonrpc: "2.0", id: 7, error: { code: -1, message: "no" } }]);
    for (const body of [answer, answers]) {
      a.dieOnRequest = true;
      while (proxy.peek() !== 0) await post(proxy.url, "steer");
      const from = [a.seen.length, b.seen.length];
      expect(await post(proxy.url, body)).toMatchObject({ status: 200, text: `b:${body}`, backend: "b" });
      expect([a.seen.length - (from[0] ?? 0), b.seen.length - (from[1] ?? 0)]).toEqual([1, 1]);
      expect(proxy.routed.at(-1)).toMatchObject({ backend: 1, refused: [] });
      a.dieOnRequest = false;
      await until(() => proxy.health()[0]?.up, "backend a back in rotation");
    }
    // A request, or a notification, may have been acted on: never sent twice.
    a.dieOnRequest = true;
    const request = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "pay" } };
    for (const body of [
      JSON.stringify([JSON.parse(answer), request]),
      '{"jsonrpc":"2.0","method":"notifications/cancelled"}',
    ]) {
      while (proxy.peek() !== 0) await post(proxy.url, "steer");
      expect(await post(proxy.url, body)).toMatchObject({ status: 502, text: "backend unreachable\n" });
    }
  });

  it("answers 503 with Retry-After when no backend is there (the request reached none)", async () => {
    const gone = await backend("gone");
    await gone.stop();
    const proxy = await proxyFor([gone]);
    expect((await post(proxy.url, "x")).status).toBe(503);
    await until(() => proxy.health()[0]?.up === false, "the refused probe");
    const response = await fetch(proxy.url, { method: "POST", body: "x" });
    expect([response.status, response.headers.get("retry-after"), await response.text()]).toEqual([
      503,
      "1",
      "no backend reachable\n",
    ]);
  });
});
