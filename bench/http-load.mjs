// The benches' HTTP workload on the load generator of http-client.mjs: lanes (one keep-alive connection each, in
// either era), `tools/call` driven on them with every reply checked, and a server process's CPU and memory read
// from /proc. `s` is a started server: { connect() (a rawConnection, or undefined for node:http), options
// (node:http's request options, for the node:http client), bearer (an Authorization value, or undefined) }.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { messageOf } from "./http-client.mjs";

const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

export const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});
export const ACCEPT = "application/json, text/event-stream";

// The load generator shares two cores with the server, so it stays lean: callbacks, bodies built from templates,
// every reply's sum checked on the raw text and every 16th reply parsed whole. `callback(error, response, text)`
// with `response` as { statusCode, headers } (header names in lower case).
export function post(s, lane, body, callback) {
  if (lane.connection) {
    lane.connection.send(lane, body, callback);
    return;
  }
  const request = http.request({ ...s.options, headers: lane.headers }, (response) => {
    let text = "";
    response.setEncoding("utf8");
    response.on("data", (chunk) => {
      text += chunk;
    });
    response.on("end", () => callback(undefined, response, text));
  });
  request.on("error", (error) => callback(error));
  request.end(body);
}

export const callBody = {
  "2026-07-28": (a) =>
    `{"jsonrpc":"2.0","id":${a},"method":"tools/call","params":{"name":"add","arguments":{"a":${a},"b":1},"_meta":${META}}}`,
  "2025-11-25": (a) =>
    `{"jsonrpc":"2.0","id":${a},"method":"tools/call","params":{"name":"add","arguments":{"a":${a},"b":1}}}`,
};

export function postAsync(s, lane, body) {
  return new Promise((resolve, reject) =>
    post(s, lane, body, (error, response, text) => (error ? reject(error) : resolve({ response, text }))),
  );
}

/** One lane per connection: the 2026-07-28 headers, or a handshake-era session opened with initialize. */
export async function openLane(s, era) {
  const connection = s.connect();
  const base = { "content-type": "application/json", accept: ACCEPT };
  if (era === "2026-07-28") {
    const headers = { ...base, "mcp-protocol-version": era, "mcp-method": "tools/call", "mcp-name": "add" };
    if (s.bearer) headers.authorization = s.bearer;
    return { era, connection, headers, body: callBody[era] };
  }
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: era, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
  });
  const opened = await postAsync(s, { connection, headers: base }, init);
  if (opened.response.statusCode !== 200 || messageOf(opened.text)?.result?.protocolVersion !== era) {
    throw new Error(`initialize: ${opened.response.statusCode} ${opened.text}`);
  }
  // The official SDK's stateless fallback answers initialize without a session: calls then go without one.
  const session = opened.response.headers["mcp-session-id"];
  const headers = { ...base, "mcp-protocol-version": era, ...(session ? { "mcp-session-id": session } : {}) };
  const lane = { era, connection, headers, body: callBody[era] };
  const initialized = await postAsync(s, lane, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  if (initialized.response.statusCode !== 202) {
    throw new Error(`notifications/initialized: ${initialized.response.statusCode} ${initialized.text}`);
  }
  return lane;
}

/** `tools/call` on every lane, one in flight per lane, until `count` replies or the clock passes `until`. */
export function drive(s, lanes, { count = Number.POSITIVE_INFINITY, until = Number.POSITIVE_INFINITY, first = 0 }) {
  let sent = 0;
  let done = 0;
  let failed = false;
  return new Promise((resolve, reject) => {
    const next = (lane) => {
      const a = first + sent;
      sent++;
      post(s, lane, lane.body(a), (error, response, text) => {
        if (failed) return;
        const ok =
          error === undefined &&
          response.statusCode === 200 &&
          text.includes(`"text":"${a + 1}"`) &&
          (a % 16 !== 0 || messageOf(text)?.result?.content?.[0]?.text === String(a + 1));
        if (!ok) {
          failed = true;
          reject(error ?? new Error(`bad reply to call ${a}: ${response.statusCode} ${text}`));
          return;
        }
        done++;
        if (sent < count && (until === Number.POSITIVE_INFINITY || performance.now() < until)) next(lane);
        else if (done === sent) resolve(done);
      });
    };
    for (const lane of lanes.slice(0, Math.min(lanes.length, count))) next(lane);
  });
}

export function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb("VmRSS"), peak: mb("VmHWM") };
}

/** CPU seconds the process has used (all its threads). */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}
