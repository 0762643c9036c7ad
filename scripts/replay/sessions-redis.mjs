// Sessions across three processes sharing a Redis: each request of a session goes to the next process in turn.
import { HttpChannel, STATELESS } from "./channels.mjs";
import { call, resources, tools } from "./conversation.mjs";
import { httpSession } from "./http-processes.mjs";
import { hear } from "./sessions-http.mjs";
import { tasks } from "./stateless.mjs";

const PROCESSES = 3;
const roundRobin = (n) => n % PROCESSES;

async function handshake(peer) {
  const ch = new HttpChannel(peer, "2025-11-25", { route: roundRobin });
  await ch.send("initialize", ch.initialize());
  await ch.send("notifications/initialized", { jsonrpc: "2.0", method: "notifications/initialized" });
  const get = await ch.other("GET stream", "GET", { stream: true });
  await tools(ch);
  await hear(get, "notifications/tools/list_changed", 2);
  await resources(ch);
  await ch.send("resources/subscribe", ch.msg("resources/subscribe", { uri: "fixture://watched" }));
  await call(ch, "touch a subscribed resource", "touch", { uri: "fixture://watched" });
  await hear(get, "notifications/resources/updated");
  get.close();
  await get.ended();
  await call(ch, "touch while no GET stream is open", "touch", { uri: "fixture://watched" });
  const resumed = await ch.other("GET stream resumed on another process", "GET", {
    stream: true,
    headers: { "last-event-id": get.lastEventId },
  });
  await hear(resumed, "notifications/resources/updated");
  resumed.close();
  await resumed.ended();
  const slow = ch.msg("tools/call", { name: "slow" }, { meta: { progressToken: "slow-1" } });
  const running = await ch.send("slow, until it starts", slow, { stream: true });
  await hear(running, "notifications/progress");
  await ch.send("cancel slow from another process", {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: slow.id },
  });
  await running.ended();
  await ch.other("DELETE the session", "DELETE");
  for (let i = 0; i < PROCESSES; i++) await ch.send(`a request after DELETE (${i + 1})`, ch.msg("ping"));
}

async function stateless(peer) {
  const ch = new HttpChannel(peer, STATELESS, { route: roundRobin });
  await tasks(ch);
  const listen = ch.msg("subscriptions/listen", {
    notifications: { toolsListChanged: true, resourceSubscriptions: ["fixture://watched"] },
  });
  const stream = await ch.send("subscriptions/listen", listen, { stream: true, to: 1 });
  await hear(stream, "notifications/subscriptions/acknowledged");
  // Each change is heard before the next is made: changes made on two processes reach a third in either order.
  await call(ch, "toggle on, heard by the listen on another process", "toggle", {}, { to: 0 });
  await hear(stream, "notifications/tools/list_changed");
  await call(ch, "touch, heard by the listen on another process", "touch", { uri: "fixture://watched" }, { to: 2 });
  await hear(stream, "notifications/resources/updated");
  await call(ch, "toggle off", "toggle", {}, { to: 0 });
  await hear(stream, "notifications/tools/list_changed", 2);
  stream.close();
  await call(ch, "add", "add", { a: 20, b: 22 });
}

/** Each Redis session: three fresh processes of the checkout and a Redis of their own. */
export const REDIS_SESSIONS = [
  ["redis 2025-11-25 (3 processes)", handshake],
  ["redis 2026-07-28 (3 processes)", stateless],
].map(([name, play]) => httpSession(name, play, PROCESSES, { redis: true }));
