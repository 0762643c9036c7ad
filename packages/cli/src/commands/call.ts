import { type Answerer, answerer } from "../answers.js";
import { formatResult, parseArgsJson, parsePairs } from "../call.js";
import { colorsFor } from "../colors.js";
import { CliError, EXIT } from "../exit-codes.js";
import { describeProgress, type ProgressLine, progressLine } from "../progress-line.js";
import { splitCall } from "../target.js";
import { callWithTasks, TASKS_EXTENSION, type TaskCallOutcome } from "../task-call.js";
import { callWithCoreTask } from "../task-call-core.js";
import { addClientOptions, type ClientFlags, clientOptions, useClient } from "./client.js";
import { type CliContext, type CommandRegistration, err, out } from "./context.js";

interface CallFlags extends ClientFlags {
  args?: string;
  answer: string[];
  wait: boolean;
}

/** `toolsmith call <server…> <tool> [key=value…]`: call one tool and print what it returned. */
export const callCommand: CommandRegistration = (program, cli) => {
  addClientOptions(
    program
      .command("call")
      .description("call one tool and print what it returned (waiting for it when it runs as a task)")
      .argument("<server...>", "the server (a command or an http(s) URL), then the tool, then key=value arguments")
      .option("--args <json>", "the arguments as a JSON object (key=value pairs after the tool override its keys)")
      .option(
        "--answer <json>",
        "the answer to the tool's next question, as the form's JSON (repeatable; in the order asked)",
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      )
      .option("--no-wait", "when the call becomes a task, print the task and leave it running")
      .passThroughOptions(),
  )
    .addHelpText(
      "after",
      `
Options go before the server. The tool is the last word that is not key=value, or the word after --:
  toolsmith call node dist/main.js add title=Milk body="2 litres"
  toolsmith call --args '{"tags":["errands"]}' http://127.0.0.1:3000/mcp add title=Milk body=x
  toolsmith call node server.js --flag=x -- add title=Milk
A value is read as the tool's input schema says (text, number, true/false, JSON).
When the server speaks the tasks extension, a long tool runs as a task: toolsmith shows its status and progress,
asks its questions (or takes --answer), and Ctrl-C cancels it (exit 130).`,
    )
    .action(async (words: string[], flags: CallFlags) => {
      const { target, tool, pairs } = splitCall(words);
      const base = parseArgsJson(flags.args);
      const answer = answerer(flags.answer, process.stdin.isTTY === true && process.stderr.isTTY === true);
      // The handshake era asks its questions as requests of the server's: the client answers them.
      const options = { ...clientOptions(flags, cli.color()), answer };
      await useClient(
        target,
        options,
        async ({ client, raw }, status) => {
          const listed = client.getServerCapabilities()?.tools ? (await client.listTools()).tools : [];
          const definition = listed.find((t) => t.name === tool);
          if (!definition) {
            const names = listed.map((t) => t.name).join(", ") || "none";
            throw new CliError(`the server has no tool "${tool}" (its tools: ${names})`);
          }
          const args = { ...base, ...parsePairs(pairs, definition.inputSchema) };
          const progress = progressLine(process.stderr, colorsFor(process.stderr, cli.color()));
          const discover = client.getDiscoverResult() as { capabilities?: { extensions?: Record<string, unknown> } };
          status.show(`calling ${tool}…`);
          const url = target.kind === "http" ? target.url.href : undefined;
          if (discover?.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined) {
            await callAsTask({ raw, tool, args, progress, answer, flags, cli, url });
            return;
          }
          // 2025-11-25's own tasks: a tool that may run as one does, on a server that declares them.
          const support = (definition as { execution?: { taskSupport?: string } }).execution?.taskSupport;
          const tasks = client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } };
          if (tasks?.tasks?.requests?.tools?.call !== undefined && (support === "optional" || support === "required")) {
            await callAsTask({ raw, tool, args, progress, answer, flags, cli, url, handshake: true });
            return;
          }
          // The progress is heard as it arrives (the client's own onprogress can miss what came with the answer);
          // onprogress still asks the server for it.
          const show = (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
            progress.show(describeProgress(tool, p));
          raw.hearClientProgress(show);
          const result = await client
            .callTool({ name: tool, arguments: args }, { timeout: options.timeout, onprogress: show })
            .finally(() => raw.hearClientProgress(undefined));
          progress.clear();
          status.clear();
          printResult(result as Record<string, unknown>, tool, flags, cli);
        },
        cli.color() && !flags.json,
      );
    });
};

export function printResult(
  result: Record<string, unknown>,
  tool: string,
  flags: { json?: boolean },
  cli: CliContext,
): void {
  if (flags.json) out(`${JSON.stringify(result, null, 2)}\n`);
  else out(formatResult(result as never, colorsFor(process.stdout, cli.color())));
  if (result.isError) {
    if (!flags.json) err(`${colorsFor(process.stderr, cli.color()).red("error:")} ${tool} returned isError\n`);
    cli.setExitCode(EXIT.failed);
  }
}

interface TaskCall {
  raw: Parameters<typeof callWithTasks>[0]["raw"];
  tool: string;
  args: Record<string, unknown>;
  progress: ProgressLine;
  answer: Answerer;
  flags: CallFlags;
  cli: CliContext;
  url: string | undefined;
  /** 2025-11-25's own tasks. */
  handshake?: boolean;
}

/** The call through the tasks extension; Ctrl-C cancels the task it became. */
async function callAsTask({ raw, tool, args, progress, answer, flags, cli, url, handshake }: TaskCall): Promise<void> {
  const interrupt = new AbortController();
  const leave = new AbortController();
  // The first Ctrl-C cancels the task, a second stops waiting for the server to confirm it.
  const onSigint = () => (interrupt.signal.aborted ? leave : interrupt).abort();
  process.on("SIGINT", onSigint);
  let outcome: Awaited<ReturnType<typeof callWithTasks>>;
  try {
    outcome = await (handshake ? callWithCoreTask : callWithTasks)({
      raw,
      tool,
      args,
      progress,
      answer,
      interrupt: interrupt.signal,
      leave: leave.signal,
      noWait: !flags.wait,
      ...(url ? { url } : {}),
    });
  } finally {
    process.off("SIGINT", onSigint);
    progress.clear();
  }
  if (outcome.kind === "created") {
    out(`${JSON.stringify(outcome.task, null, 2)}\n`);
    // Over HTTP the task outlives this connection: say how to reach it again.
    if (url !== undefined) err(`follow it: toolsmith task follow ${url} ${String(outcome.task.taskId)}\n`);
  } else printOutcome(outcome, tool, flags, cli);
}

/** How a task ended, for its reader: its result, else its error or cancellation on stderr (and the exit code). */
export function printOutcome(outcome: TaskCallOutcome, tool: string, flags: { json?: boolean }, cli: CliContext): void {
  const red = colorsFor(process.stderr, cli.color()).red;
  if (outcome.kind === "complete") printResult(outcome.result, tool, flags, cli);
  else if (outcome.kind === "failed") {
    if (flags.json) out(`${JSON.stringify(outcome.error, null, 2)}\n`);
    err(`${red("error:")} task ${outcome.taskId} failed with error ${outcome.error.code}: ${outcome.error.message}\n`);
    cli.setExitCode(EXIT.failed);
  } else if (outcome.byUs) {
    err(`cancelled task ${outcome.taskId}\n`);
    cli.setExitCode(EXIT.interrupted);
  } else {
    err(`${red("error:")} task ${outcome.taskId} was cancelled\n`);
    cli.setExitCode(EXIT.failed);
  }
}
