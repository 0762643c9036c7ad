// The stdio sessions: one server process each, both eras.
import { STATELESS, StdioChannel } from "./channels.mjs";
import { BAD_INPUT, call, resources, tools } from "./conversation.mjs";
import { statelessRefusals, tasks } from "./stateless.mjs";
import { StdioPeer } from "./stdio-peer.mjs";
import { STOPPED } from "./transcript.mjs";

const isNotification = (message) => message?.method !== undefined && message.id === undefined;
const progressed = (message) => message?.method === "notifications/progress";

const isRequest = (message) =>
  typeof message?.method === "string" && (typeof message.id === "string" || typeof message.id === "number");

// What a raw line is answered with, if it is a request or a batch holding one.
function replyTo(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  // A batch is answered with an array, or refused whole with one error (id null).
  if (Array.isArray(message)) {
    return message.some(isRequest)
      ? (reply) => Array.isArray(reply) || (reply?.id === null && !!reply.error)
      : undefined;
  }
  if (!isRequest(message)) return undefined;
  const id = JSON.stringify(message.id);
  return (reply) => reply?.method === undefined && JSON.stringify(reply?.id) === id;
}

/**
 * A raw line, awaiting its reply when it is a request (requests run side by side: a later one's reply could pass
 * it), then a request whose reply ends the exchange (what a line that is no request got lands before it).
 */
async function raw(ch, label, text) {
  await ch.send(label, text, { until: replyTo(text) ?? null });
  await ch.send(`${label} › then`, ch.msg("tools/call", { name: "echo", arguments: { text: "sync" } }));
}

async function badInput(ch) {
  for (const [label, text] of BAD_INPUT) await raw(ch, label, text);
  const big = JSON.stringify(ch.msg("tools/call", { name: "echo", arguments: { text: "x".repeat(20_000) } }));
  await raw(ch, "a line over maxLineBytes", big);
  await raw(ch, "a batch", JSON.stringify([ch.msg("tools/list"), ch.msg("prompts/list")]));
}

/** `slow` cancelled by the client once it said it started. */
async function cancelSlow(ch) {
  const slow = ch.msg("tools/call", { name: "slow" }, { meta: { progressToken: "slow-1" } });
  await ch.send("slow, until it starts", slow, { until: progressed });
  const cancel = {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: slow.id, reason: "enough" },
  };
  await raw(ch, "cancel slow", JSON.stringify(cancel));
}

async function subscriptions(ch) {
  await ch.send("resources/subscribe", ch.msg("resources/subscribe", { uri: "fixture://watched" }));
  await call(ch, "touch a subscribed resource", "touch", { uri: "fixture://watched" });
  await call(ch, "touch another resource", "touch", { uri: "fixture://readme" });
  await ch.send("resources/unsubscribe", ch.msg("resources/unsubscribe", { uri: "fixture://watched" }));
  await call(ch, "touch it once unsubscribed", "touch", { uri: "fixture://watched" });
}

async function handshake(peer, version) {
  const ch = new StdioChannel(peer, version);
  await ch.send("ping before initialize", ch.msg("ping"));
  await ch.send("tools/list before initialize", ch.msg("tools/list"));
  await ch.send("initialize", ch.initialize());
  await raw(ch, "notifications/initialized", '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await tools(ch);
  await resources(ch);
  await subscriptions(ch);
  await cancelSlow(ch);
  await badInput(ch);
  await ch.send("initialize again", ch.initialize());
  await ch.send("server/discover in a session", ch.msg("server/discover"));
  if (version === "2025-03-26") {
    const batch = [ch.msg("ping"), ch.msg("tools/call", { name: "add", arguments: { a: 2, b: 3 } })];
    batch.push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "x", progress: 1 } });
    await raw(ch, "a batch of two requests and a notification", JSON.stringify(batch));
    await raw(ch, "a batch of a notification only", JSON.stringify([batch[2]]));
  }
}

async function stateless(peer) {
  const ch = new StdioChannel(peer, STATELESS);
  await ch.send("tools/list without _meta", { jsonrpc: "2.0", id: "no-meta", method: "tools/list" });
  await statelessRefusals(ch);
  await tools(ch);
  await resources(ch);
  await tasks(ch);
  // A listen stream: acknowledged, then told of list changes and updates while other requests run.
  const listen = ch.msg("subscriptions/listen", {
    notifications: { toolsListChanged: true, resourceSubscriptions: ["fixture://watched"] },
  });
  await ch.send("subscriptions/listen", listen, { until: isNotification });
  await call(ch, "toggle on, heard by the listen", "toggle", {});
  await call(ch, "touch, heard by the listen", "touch", { uri: "fixture://watched" });
  await call(ch, "toggle off", "toggle", {});
  await raw(
    ch,
    "cancel the listen",
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: listen.id } }),
  );
  await cancelSlow(ch);
  await badInput(ch);
  // A client may still fall back to the handshake era on the same process.
  const fallback = new StdioChannel(peer, "2025-11-25");
  await fallback.send("initialize after stateless requests", fallback.initialize());
  await call(ch, "a stateless call in the session", "add", { a: 1, b: 1 });
}

/** Each stdio session: its name and how to play it against a fixture built from `checkout`. */
export const STDIO_SESSIONS = [
  ["stdio 2025-11-25", (peer) => handshake(peer, "2025-11-25")],
  ["stdio 2025-03-26", (peer) => handshake(peer, "2025-03-26")],
  ["stdio 2026-07-28", stateless],
].map(([name, play]) => ({
  name,
  async run(checkout) {
    const peer = new StdioPeer(checkout);
    try {
      await play(peer);
      await peer.close();
    } catch (error) {
      peer.exchanges.push({ label: STOPPED, lines: [["!", String(error.message)]] });
      peer.kill();
    }
    return { exchanges: peer.exchanges, stderr: peer.stderr };
  },
}));
