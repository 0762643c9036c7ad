// 2026-07-28 only: tasks (created, polled, answered, cancelled) and what a stateless request may get wrong.
import { CAPABILITIES, clientAnswer, TASKS } from "./channels.mjs";
import { call } from "./conversation.mjs";

export const WITH_TASKS = { ...CAPABILITIES, extensions: { [TASKS]: {} } };
const MAX_POLLS = 2000;

/**
 * `tasks/get` until `done(reply)`: only the last poll stays in the record (how many it took depends on timing).
 * Each poll waits for its reply, so this waits on events, never on a clock.
 */
export async function poll(ch, label, taskId, done) {
  // One message, sent again: how many polls it took moves neither the ids nor (over HTTP) the processes after it.
  const message = ch.msg("tasks/get", { taskId }, { capabilities: WITH_TASKS });
  const posts = ch.posts;
  let reply;
  for (let polls = 0; polls < MAX_POLLS; polls++) {
    const before = ch.peer.exchanges.length;
    ch.posts = posts;
    reply = await ch.send(label, message);
    if (done(reply)) return reply;
    ch.peer.exchanges.splice(before);
  }
  return reply;
}

const statusOf = (reply) => reply?.result?.status ?? reply?.result?.task?.status;
const taskIdOf = (reply) => reply?.result?.task?.taskId ?? reply?.result?.taskId;

/** The tasks extension: each way into a task and out of it. */
export async function tasks(ch) {
  const opt = { capabilities: WITH_TASKS };
  await call(ch, "required task without the extension", "must", {});
  await call(ch, "optional task without the extension (runs at once)", "quick", {});
  await ch.send("tasks/get without the extension", ch.msg("tasks/get", { taskId: "nope" }));
  await ch.send("tasks/get of an unknown task", ch.msg("tasks/get", { taskId: "nope" }, opt));
  await ch.send("tasks/get without a task id", ch.msg("tasks/get", {}, opt));

  const quick = taskIdOf(await call(ch, "quick as a task", "quick", {}, opt));
  await poll(ch, "quick's tasks/get once completed", quick, (r) => statusOf(r) !== "working");

  // The job waits in the process that runs it: `release` goes there too (over HTTP, the first process).
  const job = taskIdOf(await call(ch, "job as a task", "job", {}, { ...opt, to: 0 }));
  await ch.send("job's tasks/get while it waits", ch.msg("tasks/get", { taskId: job }, opt));
  await call(ch, "release the job", "release", {}, { to: 0 });
  const asking = await poll(ch, "job's tasks/get once it asks", job, (r) => statusOf(r) !== "working");
  const inputResponses = {};
  for (const [key, asked] of Object.entries(asking?.result?.inputRequests ?? {})) {
    inputResponses[key] = clientAnswer(asked.method, asked.params);
  }
  await ch.send("job's tasks/update", ch.msg("tasks/update", { taskId: job, inputResponses }, opt));
  await ch.send("tasks/update again", ch.msg("tasks/update", { taskId: job, inputResponses }, opt));
  await poll(ch, "job's tasks/get once finished", job, (r) => !["working", "input_required"].includes(statusOf(r)));

  const forever = taskIdOf(await call(ch, "forever as a task", "forever", {}, opt));
  await ch.send("forever's tasks/cancel", ch.msg("tasks/cancel", { taskId: forever }, opt));
  await poll(ch, "forever's tasks/get once cancelled", forever, (r) => statusOf(r) !== "working");
  await ch.send("tasks/cancel of a finished task", ch.msg("tasks/cancel", { taskId: quick }, opt));
}

/** What the stateless era refuses in `_meta`. */
export async function statelessRefusals(ch) {
  const bare = (label, meta) =>
    ch.send(label, { jsonrpc: "2.0", id: `bare-${label}`, method: "tools/list", params: { _meta: meta } });
  await bare("an unknown version", { ...ch.meta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" });
  await bare("no client capabilities", { "io.modelcontextprotocol/protocolVersion": ch.version });
  await bare("capabilities not an object", { ...ch.meta(), "io.modelcontextprotocol/clientCapabilities": [] });
  await bare("a version that is not a string", { ...ch.meta(), "io.modelcontextprotocol/protocolVersion": 7 });
  await ch.send("server/discover", ch.msg("server/discover"));
}
