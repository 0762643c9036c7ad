import { describe, expect, it } from "vitest";
import { createTestClient } from "../../testing/client.js";
import { rpcError } from "../../testing/expect-errors.test-util.js";
import { type AuditRecord, audit } from "./audit.js";
import { kitServer } from "./kit.test-util.js";

describe("audit", () => {
  it("records who did what to what, how it went, with argument values redacted by default", async () => {
    const records: AuditRecord[] = [];
    const s = kitServer().use(audit((entry) => records.push(entry)));
    const client = await createTestClient(s, { auth: { subject: "ana", scopes: [] } });
    await client.callTool("add", { a: 1, b: 2 });
    await client.callTool("fail");
    await rpcError(client.callTool("refuse"));
    await client.listTools();
    expect(records.map(({ at: _at, ...rest }) => rest)).toEqual([
      { method: "tools/call", name: "add", caller: "ana", arguments: { a: "number", b: "number" }, outcome: "ok" },
      { method: "tools/call", name: "fail", caller: "ana", outcome: "isError" },
      { method: "tools/call", name: "refuse", caller: "ana", outcome: "error", code: -32002 },
    ]);
  });
});
