import { describe, expect, it } from "vitest";
import { createServer } from "../index.js";
import { createTestClient } from "./client.js";
import { sent } from "./fixtures.test-util.js";

// A 2026-07-28 subscriptions/listen stream as the test reads it: until it is closed, aborted, or the client closes.

function tracker() {
  const server = createServer({ name: "issues", version: "1" });
  server.tool({ name: "create", description: "Create an issue", handler: () => "created" });
  return server;
}

describe("a 2026-07-28 listen stream", () => {
  it("aborting its signal closes it: the server is told, next() rejects with the reason", async () => {
    const client = await createTestClient(tracker());
    const controller = new AbortController();
    const stream = await client.listen({ toolsListChanged: true }, { signal: controller.signal });
    const next = stream.next();
    controller.abort("the panel closed");
    await expect(next).rejects.toBe("the panel closed");
    await expect(stream.next()).rejects.toBe("the panel closed");
    expect(
      sent(client, "notifications/cancelled").map(
        (record) => (record.message as { params?: { requestId?: unknown } }).params?.requestId,
      ),
    ).toEqual([stream.id]);
    await expect(client.listen({}, { signal: controller.signal })).rejects.toBe("the panel closed");
  });

  it("close() of the client ends it; a stream the test closed rejects next()", async () => {
    const client = await createTestClient(tracker());
    const stream = await client.listen({ toolsListChanged: true });
    const closedByTest = await client.listen({ promptsListChanged: true });
    await closedByTest.close();
    await expect(closedByTest.next()).rejects.toThrow(
      `the subscriptions/listen stream "${closedByTest.id}" was closed`,
    );
    const next = stream.next();
    client.close();
    await expect(next).rejects.toThrow("the test client was closed");
  });
});
