import { InputRequired } from "../../context/ask.js";
import { isMcpError } from "../../wire/errors.js";
import { ErrorCode } from "../../wire/json-rpc.js";
import { andThen, attempt, type MaybePromise } from "../../wire/maybe.js";

/** How an operation ended: a result (`ok`, or a tool's own `isError`), an `input_required` round, or an error. */
export type Outcome =
  | { outcome: "ok" | "isError" }
  | { outcome: "input_required" }
  | { outcome: "error"; code: number };

/**
 * Run `next`, then tell `done` how it ended, and pass the result or error on unchanged. `done` is called once, and
 * a sink that throws never changes what the client gets.
 */
export function observe(
  next: () => MaybePromise<Record<string, unknown>>,
  done: (outcome: Outcome) => void,
): MaybePromise<Record<string, unknown>> {
  const tell = (outcome: Outcome) => {
    try {
      done(outcome);
    } catch {
      // A logging or audit sink's failure is its own; the operation's answer stands.
    }
  };
  return attempt(
    () =>
      andThen(next(), (result) => {
        tell({ outcome: result.isError === true ? "isError" : "ok" });
        return result;
      }),
    (error) => {
      // 2026-07-28: a handler's question is not a failure; its round ends input_required.
      if (error instanceof InputRequired) tell({ outcome: "input_required" });
      else tell({ outcome: "error", code: isMcpError(error) ? error.code : ErrorCode.InternalError });
      throw error;
    },
  );
}
