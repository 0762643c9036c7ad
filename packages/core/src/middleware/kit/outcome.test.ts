import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../../server/server.js";
import { createTestClient } from "../../testing/client.js";
import { audit } from "./audit.js";
import { kitServer } from "./kit.test-util.js";
import { rateLimit } from "./rate-limit.js";
import { requestLog } from "./request-log.js";

// How the kit sees an operation end (observe): 2026-07-28 rounds, and sinks that fail.

describe("the kit and 2026-07-28 input_required rounds", () => {
  function asking() {
    const s = createServer({ name: "asks", version: "1" });
    s.tool({
      name: "confirm",
      description: "asks first",
      handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
    });
    return s;
  }

  it("a round that asks is logged and audited as input_required, and its retry costs no token", async () => {
    const lines: string[] = [];
    const records: string[] = [];
    const s = asking().use(
      requestLog((line) => lines.push(line.outcome)),
      audit((entry) => records.push(entry.outcome)),
      rateLimit({ capacity: 1, perSecond: 0.0001, now: () => 0 }),
    );
    const client = await createTestClient(s, {
      auth: { subject: "ana", scopes: [] },
      elicit: async () => ({ action: "accept", content: { ok: true } }),
    });
    expect(await client.callTool("confirm")).toMatchObject({ content: [{ text: "accept" }] });
    expect(lines).toEqual(["input_required", "ok"]);
    expect(records).toEqual(["input_required", "ok"]);
  });

  it("a sink that throws changes nothing the client gets, and is told once", async () => {
    let told = 0;
    const s = kitServer().use(
      requestLog(() => {
        told++;
        throw new Error("disk full");
      }),
    );
    const client = await createTestClient(s);
    expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
    expect(told).toBe(1);
  });
});
