import { type ChildProcess, spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { until, within } from "../../../scripts/wait.js";
import { backend, post, proxyFor } from "./backends.test-util.js";

const children: ChildProcess[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/**
 * A port whose connections never open (a blackholed backend): a stopped process listening with a backlog of one,
 * whose queue two connections fill, so the kernel drops the next ones' SYN.
 */
async function blackholed(): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      "const s = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => { process.stdout.write(s.address().port + '\\n'); process.kill(process.pid, 'SIGSTOP'); });",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  const port = Number(
    await new Promise<string>((resolve) => child.stdout?.once("data", (data) => resolve(String(data)))),
  );
  for (let i = 0; i < 2; i++) {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    await new Promise((resolve) => socket.once("connect", resolve));
  }
  return `http://127.0.0.1:${port}/mcp`;
}

/** The SSE text of `response` until its end, or "cut" when it ends in an error. */
async function rest(response: Response): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value);
  } catch {
    return `${text}cut`;
  }
  return text;
}

describe("a backend that stops answering", () => {
  it("has what it holds cut once its probes time out: each 2026-07-28 request told, a pending one 504, a session's stream cut", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    const proxy = await proxyFor([a, b], { healthTimeoutMs: 200 });
    proxy.rotate(1, false);
    const sse = { accept: "application/json, text/event-stream", "content-type": "application/json" };
    const call = await fetch(proxy.url, {
      method: "POST",
      headers: sse,
      body: JSON.stringify({ jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "slow" } }),
    });
    const stream = await fetch(proxy.url, { headers: { accept: "text/event-stream", "mcp-session-id": "s1" } });
    await until(() => a.streams.length === 2, "a to hold both streams");
    a.hung = true;
    const pending = post(proxy.url, "never answered");
    await until(() => a.seen.length === 3, "a to hold the plain POST");
    proxy.rotate(1, true);

    const [told, cut, answered] = await within(
      Promise.all([rest(call), rest(stream), pending]),
      "the proxy to end what the stopped backend holds",
    );
    const data = told.split("\n").filter((line) => line.startsWith("data: {"));
    expect(told.startsWith("id: 1\ndata: from a\n\n")).toBe(true);
    expect(data.map((line) => JSON.parse(line.slice(6)))).toEqual([
      {
        jsonrpc: "2.0",
        id: "call-1",
        error: { code: -32603, message: expect.stringMatching(/stopped before it answered/) },
      },
    ]);
    expect(cut.endsWith("cut")).toBe(true);
    expect(answered).toMatchObject({ status: 504, text: "backend stopped answering\n" });
    expect(proxy.health()[0]).toMatchObject({ up: false, reason: "timed out" });
    expect((await post(proxy.url, "next")).backend).toBe("b");
  });

  it("keeps a long quiet stream of a backend that answers its probes", async () => {
    const a = await backend("a");
    const proxy = await proxyFor([a], { healthTimeoutMs: 200 });
    const stream = await fetch(proxy.url, { headers: { accept: "text/event-stream", "mcp-session-id": "s1" } });
    const from = a.healthz.probes;
    await until(() => a.healthz.probes >= from + 20, "twenty more probes answered");
    a.streams[0]?.end("data: still here\n\n");
    expect(await rest(stream)).toBe("id: 1\ndata: from a\n\ndata: still here\n\n");
  });

  it("gives up a connection that never opens after `connectTimeoutMs`, sends the request to the next backend, and takes it out", async () => {
    const b = await backend("b");
    const proxy = await proxyFor([{ url: await blackholed() }, b], {
      connectTimeoutMs: 200,
      healthTimeoutMs: 200,
      healthIntervalMs: 60_000,
    });
    expect(await within(post(proxy.url, "once"), "the answer from b")).toMatchObject({ status: 200, text: "b:once" });
    await until(() => proxy.health()[0]?.up === false, "the blackholed backend out of rotation");
    expect(proxy.health()[0]?.reason).toMatch(/timed out/);
    expect(b.seen.length).toBe(1);
  });

  it("takes out a backend whose probes' connections never open, at `healthTimeoutMs`", async () => {
    const proxy = await proxyFor([{ url: await blackholed() }], {
      healthTimeoutMs: 200,
      healthIntervalMs: 60_000,
      unhealthyAfter: 1,
    });
    await until(() => proxy.health()[0]?.up === false, "the blackholed backend's probes to time out");
    expect(proxy.health()[0]?.reason).toBe("timed out");
  });
});
