import { describe, expect, it } from "vitest";
import type { EventStream } from "./event-stream.js";
import { PostReply, type PostStreamLog } from "./post-reply.js";

const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}';
const PROGRESS = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}';
const RESULT = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';

/** A log whose writes are kept only when the test says (`keep`), as an engine's appends are, later. */
function heldLog(priming: boolean) {
  const held: { data: string; keep: () => void }[] = [];
  const log: PostStreamLog = {
    priming,
    nextKey: () => "node-1",
    opened: () => undefined,
    write: (_key: string, data: string, stream: EventStream, last: boolean) =>
      new Promise<void>((resolve) => {
        held.push({
          data,
          keep: () => {
            if (data === "") stream.prime(`e-${held.length}`);
            else stream.write(data, `e-${held.length}`);
            if (last) stream.close();
            resolve();
          },
        });
      }),
    finished: (_key, _request, stream) => stream.close(),
  };
  return { log, held };
}

describe("a POST's reply kept for resumption", () => {
  it.each([
    ["with a priming event (2025-11-25)", true, ["", PROGRESS]],
    ["without one", false, [PROGRESS]],
  ])("begins (its headers) only once its first event is kept, %s", async (_name, priming, first) => {
    const { log, held } = heldLog(priming);
    const reply = new PostReply({ status: () => 200, log }, JSON.parse(CALL), CALL);
    const answered = reply.answered();
    reply.deliver(PROGRESS, { kind: "notification", relatedTo: 1 });
    // A process that died now would have said nothing for the request: no answer yet, so no headers.
    expect(held.map((write) => write.data)).toEqual(first);
    expect(reply.outgoing).toBeUndefined();

    held[0]?.keep();
    const outgoing = await answered;
    expect(outgoing).toMatchObject({ status: 200, headers: { "content-type": "text/event-stream" } });
    expect(outgoing.stream).toBeDefined();
    // What comes after is written as it is kept, on the stream already begun.
    reply.deliver(RESULT, { kind: "response", relatedTo: 1 });
    for (const write of held.slice(1)) write.keep();
    expect(held.map((write) => write.data)).toEqual([...first, RESULT]);
    expect(outgoing.stream?.closed).toBe(true);
  });
});
