import { describe, expect, it } from "vitest";
import { createTestClient } from "../../testing/client.js";
import { rpcError } from "../../testing/expect-errors.test-util.js";
import { kitServer } from "./kit.test-util.js";
import { type RequestLogLine, requestLog } from "./request-log.js";

describe("requestLog", () => {
  it("logs each operation with its caller, outcome and duration", async () => {
    const lines: RequestLogLine[] = [];
    let clock = 0;
    const s = kitServer().use(
      requestLog(
        (line) => lines.push(line),
        () => (clock += 2.5),
      ),
    );
    const client = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    await client.callTool("add", { a: 1, b: 2 });
    await client.callTool("fail");
    await rpcError(client.callTool("refuse"));
    expect(lines.map((line) => line.text)).toEqual([
      "tools/call add (ana) ok 2.5 ms",
      "tools/call fail (ana) isError 2.5 ms",
      "tools/call refuse (ana) error -32002 2.5 ms",
    ]);
  });
});
