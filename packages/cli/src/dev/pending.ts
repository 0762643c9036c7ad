import { ErrorCode } from "@toolsmith/core";
import { isPlainObject, messageIdText, rawBatchIds } from "@toolsmith/core/internal";
import { errorLine, idText } from "@toolsmith/core/transport";

// The host's requests the server has not answered yet, by each id's exact text (past 2^53 too), so that a server
// that stops answers each of them once, with the id as the host wrote it: a batch with one array line.

type Message = Record<string, unknown>;

function isRequest(value: unknown): value is Message {
  return isPlainObject(value) && typeof value.method === "string" && value.id !== undefined;
}

function isResponse(value: unknown): value is Message {
  return isPlainObject(value) && value.method === undefined && value.id !== undefined;
}

// Each message of a line (one, or a batch's), with its id's text as the line wrote it.
function withIds(parsed: unknown, line: string): { message: unknown; id: string }[] {
  if (!Array.isArray(parsed)) return [{ message: parsed, id: messageIdText(parsed, line) }];
  let raws: (string | undefined)[] | undefined;
  return parsed.map((message, index) => {
    const id = isPlainObject(message) ? message.id : undefined;
    if (typeof id === "number" && !Number.isSafeInteger(id)) {
      raws ??= rawBatchIds(line);
      return { message, id: raws[index] ?? idText(id) };
    }
    return { message, id: idText(id) };
  });
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The host's unanswered requests: each single one, and each batch's still unanswered entries. */
export class Pending {
  readonly #waiting = new Map<Set<string>, { batch: boolean }>();

  /** A host line on its way to the server. */
  sent(line: string): void {
    const parsed = parse(line);
    const ids = withIds(parsed, line)
      .filter(({ message }) => isRequest(message))
      .map(({ id }) => id);
    if (ids.length > 0) this.#waiting.set(new Set(ids), { batch: Array.isArray(parsed) });
  }

  /** A server line on its way to the host: the requests it answers are answered. */
  answered(line: string): void {
    for (const { message, id } of withIds(parse(line), line)) {
      if (!isResponse(message)) continue;
      for (const ids of this.#waiting.keys()) {
        if (!ids.delete(id)) continue;
        if (ids.size === 0) this.#waiting.delete(ids);
        break;
      }
    }
  }

  /** One error line per unanswered request (an array line per batch), each id as the host wrote it; then none. */
  fail(message: string): string[] {
    const lines = [...this.#waiting].map(([ids, { batch }]) => {
      const errors = [...ids].map((id) => errorLine(id, { code: ErrorCode.InternalError, message }));
      return batch ? `[${errors.join(",")}]` : errors.join("\n");
    });
    this.#waiting.clear();
    return lines;
  }
}
