import { answerer } from "../answers.js";
import { colorsFor } from "../colors.js";
import { CliError, usage } from "../exit-codes.js";
import { progressLine } from "../progress-line.js";
import { RawError } from "../raw-requests.js";
import { parseTarget } from "../target.js";
import { follow, send, type TaskCallOptions, type TaskCallOutcome } from "../task-call.js";
import { followCoreTask } from "../task-call-core.js";
import { printOutcome } from "./call.js";
import { addClientOptions, type ClientFlags, clientOptions, useClient } from "./client.js";
import { type CommandRegistration, err, out } from "./context.js";

// `toolsmith task follow|result|cancel <server…> <task id>`: a task left running (`call --no-wait`), reached again
// by its id, in either generation: the tasks extension (2026-07-28) or 2025-11-25's own tasks.

const ACTIONS = ["follow", "result", "cancel"] as const;
type Action = (typeof ACTIONS)[number];
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

interface TaskFlags extends ClientFlags {
  answer: string[];
}

/** What the extension's DetailedTask says of a task that ended. */
function extensionOutcome(task: Record<string, unknown>): TaskCallOutcome {
  const taskId = String(task.taskId);
  if (task.status === "completed") return { kind: "complete", result: (task.result ?? {}) as Record<string, unknown> };
  if (task.status === "failed") {
    const error = (task.error ?? { code: -32603, message: "the task failed without saying why" }) as {
      code: number;
      message: string;
    };
    return { kind: "failed", taskId, error };
  }
  return { kind: "cancelled", taskId, byUs: false };
}

export const taskCommand: CommandRegistration = (program, cli) => {
  addClientOptions(
    program
      .command("task")
      .description("follow, fetch the result of, or cancel a task by its id (one left running by call --no-wait)")
      .argument("<action>", `${ACTIONS.join(", ")}`)
      .argument("<server...>", "the server (an http(s) URL; a stdio server's tasks end with it), then the task's id")
      .option(
        "--answer <json>",
        "follow: the answer to the task's next question, as the form's JSON (repeatable; in the order asked)",
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      ),
  )
    .addHelpText(
      "after",
      `
  toolsmith task follow http://127.0.0.1:3000/mcp 786512e2-9e0d-44bd-8f29-789f320fe840
follow waits for the task to end (showing its status, asking its questions; Ctrl-C cancels it) and prints what it
returned; result prints it if the task has ended; cancel cancels it. A handshake-era task made without sign-in is
its session's: another connection cannot reach it.`,
    )
    .action(async (action: string, words: string[], flags: TaskFlags) => {
      if (!ACTIONS.includes(action as Action))
        throw usage(`the action is one of ${ACTIONS.join(", ")}; got "${action}"`);
      if (words.length < 2) throw usage("say which server, then the task's id");
      const taskId = words.at(-1) as string;
      const target = parseTarget(words.slice(0, -1));
      const answer = answerer(flags.answer, process.stdin.isTTY === true && process.stderr.isTTY === true);
      const options = { ...clientOptions(flags, cli.color()), answer };
      await useClient(
        target,
        options,
        async ({ client, raw }) => {
          const handshake = client.getProtocolEra() !== "modern";
          const ask = async (method: string) => {
            try {
              return await send(raw, method, { taskId }, undefined, undefined, handshake);
            } catch (error) {
              if (error instanceof CliError && error.message.includes("-32602")) {
                throw new CliError(`the server knows no task ${taskId} of yours (${error.message})`);
              }
              throw error;
            }
          };
          if (action === "cancel") {
            const answered = await ask("tasks/cancel");
            if (flags.json) out(`${JSON.stringify(answered, null, 2)}\n`);
            err(`cancelled task ${taskId}\n`);
            return;
          }
          const task = await ask("tasks/get");
          if (action === "result") {
            if (!TERMINAL.has(String(task.status))) {
              const url = target.kind === "http" ? target.url.href : "<server>";
              throw new CliError(
                `task ${taskId} is ${String(task.status)}: toolsmith task follow ${url} ${taskId} waits for it`,
              );
            }
            printOutcome(handshake ? await coreResult(raw, taskId, task) : extensionOutcome(task), taskId, flags, cli);
            return;
          }
          const progress = progressLine(process.stderr, colorsFor(process.stderr, cli.color()));
          const interrupt = new AbortController();
          const leave = new AbortController();
          const onSigint = () => (interrupt.signal.aborted ? leave : interrupt).abort();
          process.on("SIGINT", onSigint);
          const following: TaskCallOptions = {
            raw,
            tool: `task ${taskId}`,
            args: {},
            progress,
            answer,
            interrupt: interrupt.signal,
            leave: leave.signal,
            handshake,
            ...(target.kind === "http" ? { url: target.url.href } : {}),
          };
          try {
            const outcome = handshake ? await followCoreTask(following, task, false) : await follow(following, task);
            progress.clear();
            printOutcome(outcome, taskId, flags, cli);
          } finally {
            process.off("SIGINT", onSigint);
            progress.clear();
          }
        },
        cli.color() && !flags.json,
      );
    });
};

// 2025-11-25: a cancelled task has no result; any other that ended, what tasks/result answers.
async function coreResult(
  raw: Parameters<typeof send>[0],
  taskId: string,
  task: Record<string, unknown>,
): Promise<TaskCallOutcome> {
  if (task.status === "cancelled") return { kind: "cancelled", taskId, byUs: false };
  try {
    return { kind: "complete", result: await raw.request("tasks/result", { taskId }) };
  } catch (error) {
    if (!(error instanceof RawError)) throw error;
    return { kind: "failed", taskId, error: { code: error.code, message: error.message } };
  }
}
