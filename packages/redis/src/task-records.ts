import type { TaskChange, TaskInputRequest, TaskLimit, TaskRecord } from "@toolsmith/core/engine";

// A purged task's key outlives its TTL by this much at most (as long as the TTL when shorter): a process whose clock
// runs behind still finds a task it may serve, and none is ever purged early.
const TASK_GRACE_MS = 60_000;

/** What of a task never changes, as JSON without its closing brace (the scripts append the rest as text). */
function fixedOf(task: TaskRecord): string {
  const fixed = JSON.stringify({
    id: task.id,
    ...(task.owner === undefined ? {} : { owner: task.owner }),
    node: task.node,
    tool: task.tool,
    ...(task.era === undefined ? {} : { era: task.era }),
    ...(task.session === undefined ? {} : { session: task.session }),
    createdAt: task.createdAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  });
  return fixed.slice(0, -1);
}

/** A question as the record keeps it: `"<key>":<request>` (only the two fields a request names). */
function entryOf(key: string, request: TaskInputRequest): string {
  return `${JSON.stringify(key)}:${JSON.stringify({ method: request.method, params: request.params })}`;
}

/** JSON of a value that may be undefined (kept as null, as JSON would). */
function json(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** CREATE_TASK's arguments after the id (`now` the caller's clock; `limit` the bounds in all and per caller, if any). */
export function createArgs(task: TaskRecord, now: number, limit?: TaskLimit): (string | number)[] {
  const purgeAfter = task.ttlMs === null ? undefined : task.createdAt + task.ttlMs;
  const keepMs =
    purgeAfter === undefined || task.ttlMs === null
      ? ""
      : Math.max(1, Math.ceil(purgeAfter - now)) + Math.min(Math.max(0, task.ttlMs), TASK_GRACE_MS);
  const args: (string | number)[] = [
    task.id,
    now,
    fixedOf(task),
    task.status,
    task.lastUpdatedAt,
    task.statusMessage === undefined ? "" : json(task.statusMessage),
    task.result === undefined ? "" : json(task.result),
    task.error === undefined ? "" : json(task.error),
    purgeAfter === undefined ? "" : purgeAfter,
    keepMs,
    limit === undefined ? "" : JSON.stringify(limit.caller),
    limit === undefined ? "" : limit.perCaller,
    limit === undefined ? "" : limit.max,
  ];
  for (const key of Object.keys(task.inputRequests)) {
    args.push(key, entryOf(key, task.inputRequests[key] as TaskInputRequest));
  }
  return args;
}

/** CHANGE_TASK's arguments after the id and the clock: kind, a, b. */
export function changeArgs(change: TaskChange): string[] {
  switch (change.kind) {
    case "message":
      return ["message", json(change.statusMessage), ""];
    case "ask":
      return ["ask", change.key, entryOf(change.key, change.request)];
    case "unask":
      return ["unask", change.key, ""];
    case "complete":
      return ["complete", json(change.result), ""];
    case "fail": {
      const { code, message, data } = change.error;
      const error = { code, message, ...(data === undefined ? {} : { data }) };
      return ["fail", json(error), change.statusMessage === undefined ? "" : json(change.statusMessage)];
    }
    case "cancel":
      return ["cancel", "", change.statusMessage === undefined ? "" : json(change.statusMessage)];
  }
}

/** ANSWER_TASK's arguments after the id and the clock: per answer its key, the key as JSON, the value as JSON. */
export function answerArgs(responses: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(responses).flatMap((key) => [key, JSON.stringify(key), json(responses[key])]);
}

/** A task from what a script answered (its JSON), or undefined. */
export function decodeTask(reply: unknown): TaskRecord | undefined {
  return typeof reply === "string" ? (JSON.parse(reply) as TaskRecord) : undefined;
}
