import { describe, expect, it } from "vitest";
import { z } from "zod";
import { idText, rawNumberMember } from "./raw-id.js";
import { createServer } from "./server.js";
import { createTestClient } from "./testing.js";

describe("ids past 2^53 are echoed exactly", () => {
  const huge = "123456789012345678901234567890";

  it("reads the raw text of the top-level id, not of a nested one", () => {
    expect(rawNumberMember(`{"params":{"id":1},"id":${huge}}`, "id")).toBe(huge);
    expect(rawNumberMember(`{"a":"\\"id\\":5","id" : -9007199254740993.5e3 }`, "id")).toBe("-9007199254740993.5e3");
    expect(rawNumberMember(`{"\\u0069d":${huge}}`, "id")).toBe(huge);
    expect(rawNumberMember(`{"id":"str"}`, "id")).toBeUndefined();
    expect(idText(7, "{}")).toBe("7");
    expect(idText(2 ** 60, `{"id":${huge}}`)).toBe(huge);
  });

  it("in results, errors and invalid-request replies", async () => {
    const s = createServer({ name: "ids", version: "1" });
    s.tool({ name: "t", description: "t", handler: () => "ok" });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const ok = await client.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"t"}}`);
    expect(ok).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${huge},"result":`));
    const unknown = await client.send(`{"jsonrpc":"2.0","id":${huge},"method":"nope"}`);
    expect(unknown).toMatch(new RegExp(`"id":${huge},"error":\\{"code":-32601`));
    const invalid = await client.send(`{"jsonrpc":"1.0","id":${huge},"method":"tools/list"}`);
    expect(invalid).toMatch(new RegExp(`"id":${huge},"error":\\{"code":-32600`));
  });

  it("a request with such an id can still be cancelled", async () => {
    const s = createServer({ name: "ids", version: "1" });
    let aborted = false;
    s.tool({
      name: "slow",
      description: "slow",
      input: { n: z.number().optional() },
      handler: (_args, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve("stopped");
          }),
        ),
    });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    const reply = client.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"slow"}}`);
    await client.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${huge}}}`);
    expect(await reply).toBeUndefined();
    expect(aborted).toBe(true);
  });
});

it("a tool without input sees {} whatever arguments arrive, in every revision", async () => {
  const seen: unknown[] = [];
  const s = createServer({ name: "no-input", version: "1" });
  s.tool({ name: "bare", description: "takes nothing", handler: (args) => seen.push(args) });
  for (const protocolVersion of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    const client = await createTestClient(s, { protocolVersion });
    await client.callTool("bare", { junk: 1, __proto__: { polluted: true } } as Record<string, unknown>);
  }
  expect(seen).toEqual([{}, {}, {}, {}]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
