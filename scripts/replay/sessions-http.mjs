// The HTTP sessions against one process: a handshake-era session in each of two revisions, the stateless era, and
// what the front door refuses. Every request goes over its own connection, so each exchange stands alone.
import { HttpChannel, STATELESS } from "./channels.mjs";
import { BAD_INPUT, call, resources, tools } from "./conversation.mjs";
import { httpSession } from "./http-processes.mjs";
import { statelessRefusals, tasks } from "./stateless.mjs";

/** Wait until the open stream `exchange` carried `count` messages of `method` (or ended). */
export function hear(exchange, method, count = 1) {
  return exchange.next(() => exchange.messagesFrom(0).filter((m) => m.method === method).length >= count);
}

/** The body of each bad input, POSTed in the channel's era (and session, if it has one). */
export async function badBodies(ch) {
  for (const [label, text] of BAD_INPUT) await ch.send(label, text);
  await ch.send("a body over maxBodyBytes", JSON.stringify(ch.msg("ping", { pad: "x".repeat(20_000) })));
  await ch.send("a batch", JSON.stringify([ch.msg("tools/list"), ch.msg("prompts/list")]));
  const chunked = ch.peer.open("a chunked body over maxBodyBytes", {
    headers: ch.headers(undefined, { "transfer-encoding": "chunked" }),
    chunks: ['{"jsonrpc":"2.0","id":"c","method":"ping","params":{"pad":"', "y".repeat(17_000), '"}}'],
  });
  await chunked.response;
  await chunked.ended();
  await ch.send(
    "a byte order mark first",
    `\uFEFF${JSON.stringify(ch.msg("tools/call", { name: "echo", arguments: { text: "bom" } }))}`,
  );
}

/** Headers a client gets wrong, on a request that would otherwise be fine. */
export async function badHeaders(ch) {
  const ok = () => ch.msg("tools/call", { name: "echo", arguments: { text: "h" } });
  await ch.send("Content-Type text/plain", ok(), { headers: { "content-type": "text/plain" } });
  await ch.send("Accept JSON only", ok(), { headers: { accept: "application/json" } });
  await ch.send("Accept missing", ok(), { headers: { accept: undefined } });
  await ch.send("Content-Encoding gzip", ok(), { headers: { "content-encoding": "gzip" } });
  await ch.send("another revision's MCP-Protocol-Version", ok(), { headers: { "mcp-protocol-version": "2025-06-18" } });
  await ch.send("an unknown MCP-Protocol-Version", ok(), { headers: { "mcp-protocol-version": "2099-01-01" } });
  await ch.send("an Origin not allowed", ok(), { headers: { origin: "https://evil.example" } });
  await ch.send("an Origin allowed", ok(), { headers: { origin: "https://app.example" } });
  await ch.send("a loopback Origin", ok(), { headers: { origin: "http://localhost:1" } });
  await ch.send("a Host not allowed", ok(), { headers: { host: "evil.example" } });
  await ch.send("a Host that is no host name", ok(), { headers: { host: "a b" } });
  await ch.send("an unknown caller (401)", ok(), { headers: { authorization: "Bearer nobody" } });
  await ch.send("a caller refused (403)", ok(), { headers: { authorization: "Bearer forbidden" } });
  await ch.send("another caller", ok(), { headers: { authorization: "Bearer mallory" } });
}

async function handshake(peer, version) {
  const ch = new HttpChannel(peer, version);
  await ch.send("initialize", ch.initialize());
  await ch.send("notifications/initialized", { jsonrpc: "2.0", method: "notifications/initialized" });
  const get = await ch.other("GET stream", "GET", { stream: true });
  await ch.other("a second GET stream while one is open", "GET");
  await tools(ch);
  await hear(get, "notifications/tools/list_changed", 2);
  await resources(ch);
  await ch.send("resources/subscribe", ch.msg("resources/subscribe", { uri: "fixture://watched" }));
  await call(ch, "touch a subscribed resource", "touch", { uri: "fixture://watched" });
  await hear(get, "notifications/resources/updated");
  get.close();
  await call(ch, "touch while no GET stream is open", "touch", { uri: "fixture://watched" });
  const resumed = await ch.other("GET stream resumed", "GET", {
    stream: true,
    headers: { "last-event-id": get.lastEventId },
  });
  await hear(resumed, "notifications/resources/updated");
  resumed.close();
  await ch
    .other("GET with an unknown Last-Event-ID", "GET", { headers: { "last-event-id": "nope" }, stream: true })
    .then(async (unknown) => {
      await unknown.next(() => unknown.events.length > 0);
      unknown.close();
    });
  const slow = ch.msg("tools/call", { name: "slow" }, { meta: { progressToken: "slow-1" } });
  const running = await ch.send("slow, until it starts", slow, { stream: true });
  await hear(running, "notifications/progress");
  await ch.send("cancel slow", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: slow.id } });
  await running.ended();
  await badBodies(ch);
  await badHeaders(ch);
  if (version === "2025-03-26") {
    const batch = [ch.msg("ping"), ch.msg("tools/call", { name: "add", arguments: { a: 2, b: 3 } })];
    await ch.send("a batch of two requests", JSON.stringify(batch));
    await ch.send(
      "a batch of a notification",
      JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }]),
    );
    await ch.send("a batch with a response", JSON.stringify([{ jsonrpc: "2.0", id: "x", result: {} }]));
  }
  await ch.send("initialize again in the session", ch.initialize());
  await ch.other("DELETE the session", "DELETE");
  await ch.send("a request after DELETE", ch.msg("ping"));
  await ch.other("GET after DELETE", "GET");
  await ch.other("DELETE again", "DELETE");
}

async function stateless(peer) {
  const ch = new HttpChannel(peer, STATELESS);
  await statelessRefusals(ch);
  await tools(ch);
  await resources(ch);
  await tasks(ch);
  const listen = ch.msg("subscriptions/listen", {
    notifications: { toolsListChanged: true, resourceSubscriptions: ["fixture://watched"] },
  });
  const stream = await ch.send("subscriptions/listen", listen, { stream: true });
  await hear(stream, "notifications/subscriptions/acknowledged");
  await call(ch, "toggle on, heard by the listen", "toggle", {});
  await call(ch, "touch, heard by the listen", "touch", { uri: "fixture://watched" });
  await call(ch, "toggle off", "toggle", {});
  await hear(stream, "notifications/tools/list_changed", 2);
  stream.close();
  const slow = await ch.send(
    "slow, until it starts",
    ch.msg("tools/call", { name: "slow" }, { meta: { progressToken: "s" } }),
    {
      stream: true,
    },
  );
  await hear(slow, "notifications/progress");
  slow.close();
  await badBodies(ch);
  await badHeaders(ch);
  const echo = ch.msg("tools/call", { name: "echo", arguments: { text: "h" } });
  await ch.send("Mcp-Method missing", echo, { headers: { "mcp-method": undefined } });
  await ch.send("Mcp-Method another", echo, { headers: { "mcp-method": "tools/list" } });
  await ch.send("Mcp-Name missing", echo, { headers: { "mcp-name": undefined } });
  await ch.send("Mcp-Name another", echo, { headers: { "mcp-name": "add" } });
  await ch.send("Mcp-Name in base64", echo, { headers: { "mcp-name": "=?base64?ZWNobw==?=" } });
  const region = ch.msg("tools/call", { name: "region", arguments: { region: "eu" } });
  await ch.send("Mcp-Param-Region missing", region, { headers: { "mcp-param-region": undefined } });
  await ch.send("Mcp-Param-Region another", region, { headers: { "mcp-param-region": "us" } });
  await ch.send("MCP-Protocol-Version missing", echo, { headers: { "mcp-protocol-version": undefined } });
  await ch.send("a session id on a stateless request", echo, { headers: { "mcp-session-id": "made-up" } });
  await ch.send("initialize with the stateless header", ch.initialize());
}

async function door(peer) {
  const ch = new HttpChannel(peer, "2025-11-25");
  const plain = (label, method, path, headers = {}) => {
    const exchange = peer.open(label, { method, path, headers });
    return exchange.response.then(() => exchange.ended());
  };
  await plain("GET /healthz", "GET", "/healthz");
  await plain("HEAD /healthz", "HEAD", "/healthz");
  await plain("POST /healthz", "POST", "/healthz");
  await plain("GET /elsewhere", "GET", "/elsewhere");
  await plain("GET /.well-known/oauth-protected-resource/mcp", "GET", "/.well-known/oauth-protected-resource/mcp");
  await plain("PUT /mcp", "PUT", "/mcp");
  await plain("OPTIONS /mcp", "OPTIONS", "/mcp", { origin: "https://app.example" });
  await plain("GET /mcp without a session", "GET", "/mcp", { accept: "text/event-stream" });
  await plain("DELETE /mcp without a session", "DELETE", "/mcp");
  await ch.send("POST without a session or initialize", ch.msg("tools/list"));
  await ch.send("POST naming an unknown session", ch.msg("tools/list"), { headers: { "mcp-session-id": "unknown" } });
  await ch.send("a notification without a session", { jsonrpc: "2.0", method: "notifications/initialized" });
  const admin = new HttpChannel(peer, STATELESS, { auth: "admin" });
  await admin.send("the admin lists tools", admin.msg("tools/list", { cursor: undefined }));
  await call(admin, "the admin calls the guarded tool", "admin_only", {});
  await admin.send("the admin reads the guarded resource", admin.msg("resources/read", { uri: "fixture://secret" }));
  const alice = new HttpChannel(peer, "2025-11-25", { auth: "alice" });
  await alice.send("alice initializes", alice.initialize());
  await alice.send("alice's session used by bob", alice.msg("ping"), { headers: { authorization: "Bearer bob" } });
  await alice.other("alice's GET stream asked by bob", "GET", { headers: { authorization: "Bearer bob" } });
  await alice.other("alice's session deleted by bob", "DELETE", { headers: { authorization: "Bearer bob" } });
  await alice.send("alice's session still there", alice.msg("ping"));
}

/** Each single-process HTTP session: a fresh process (so its state is its own). */
export const HTTP_SESSIONS = [
  ["http 2025-11-25", (peer) => handshake(peer, "2025-11-25")],
  ["http 2025-03-26", (peer) => handshake(peer, "2025-03-26")],
  ["http 2026-07-28", stateless],
  ["http front door", door],
].map(([name, play]) => httpSession(name, play, 1));
