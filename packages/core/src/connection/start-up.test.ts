import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createServer } from "../index.js";
import { schemas } from "../protocol/inbound.js";
import { connectLines } from "./connection.test-util.js";
import { initializeParams, notification, request, send, stateless } from "./fixture.test-util.js";

// Start-up does only what the first requests need: a well-formed opening, list and call in either era build no
// inbound zod schema and make no sealing key (bench/startup.mjs times both).

vi.mock("../protocol/inbound.js", async (original) => {
  const actual = await original<typeof import("../protocol/inbound.js")>();
  return { ...actual, schemas: vi.fn(actual.schemas) };
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.mocked(schemas).mockClear();
});

function server() {
  const s = createServer({ name: "start", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  return s;
}

const CALL = { name: "add", arguments: { a: 1, b: 2 } };

describe("the first requests", () => {
  it("2025-11-25: initialize, initialized, tools/list and tools/call", async () => {
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    const session = connectLines(server());
    expect(await send(session, request(0, "initialize", initializeParams("2025-11-25")))).toMatchObject({ id: 0 });
    await send(session, notification("notifications/initialized"));
    expect(await send(session, request(1, "tools/list"))).toMatchObject({ result: { tools: [{ name: "add" }] } });
    expect(await send(session, request(2, "tools/call", CALL))).toMatchObject({ result: { isError: false } });
    expect(schemas).not.toHaveBeenCalled();
    expect(importKey).not.toHaveBeenCalled();
  });

  it("2026-07-28: server/discover, tools/list and tools/call", async () => {
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    const session = connectLines(server());
    expect(await send(session, request(0, "server/discover", stateless()))).toMatchObject({ id: 0 });
    expect(await send(session, request(1, "tools/list", stateless()))).toMatchObject({ result: { tools: [{}] } });
    expect(await send(session, request(2, "tools/call", stateless(CALL)))).toMatchObject({
      result: { isError: false },
    });
    expect(schemas).not.toHaveBeenCalled();
    expect(importKey).not.toHaveBeenCalled();
  });
});
