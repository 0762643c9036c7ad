import { describe, expect, it } from "vitest";
import { createTestClient } from "../../testing/client.js";
import { rpcError } from "../../testing/expect-errors.test-util.js";
import { kitServer } from "./kit.test-util.js";
import { TimeoutError, timeout } from "./timeout.js";

describe("timeout", () => {
  it("aborts the handler's signal with a TimeoutError and answers a tool with isError at once", async () => {
    const s = kitServer().use(timeout(10));
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const result = await client.callTool("slow");
    expect(result).toMatchObject({ isError: true, content: [{ text: "tools/call slow timed out after 10 ms" }] });
    expect(TimeoutError.name).toBe("TimeoutError");
  });

  it("answers a read that never ends with -32603, and leaves synchronous answers alone", async () => {
    const s = kitServer().use(timeout((operation) => (operation.kind === "read" ? 10 : undefined)));
    const client = await createTestClient(s);
    expect((await rpcError(client.readResource("docs://slow"))).message).toBe("resources/read timed out after 10 ms");
    expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
  });
});
