import { createServer } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { expect, it } from "vitest";
import { z } from "zod";

// Core's questions of one call share one listener on the call's signal (connection/outbound-requests.ts): with a
// listener each, 11 at once made Node print MaxListenersExceededWarning on stderr (seen in the gateway's tests, a
// remote asking many questions in one call). In Node, not in core's own tests: core cannot name `process`.

it("20 questions at once in one call are each answered, with no listener warning on the call's signal", async () => {
  const server = createServer({ name: "many", version: "1" });
  server.tool({
    name: "many",
    description: "Asks 20 questions at once",
    handler: async (_args, ctx) => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => ctx.elicit({ message: `${i}?`, schema: { ok: z.boolean() } })),
      );
      return String(answers.filter((answer) => answer.action === "accept").length);
    },
  });
  const warnings: string[] = [];
  const warned = (warning: Error) => void warnings.push(warning.name);
  process.on("warning", warned);
  try {
    const client = await createTestClient(server, {
      protocolVersion: "2025-11-25",
      elicit: async () => ({ action: "accept", content: { ok: true } }),
    });
    expect(await client.callTool("many", {})).toMatchObject({ content: [{ text: "20" }] });
    // Node tells a warning on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", warned);
  }
  expect(warnings).toEqual([]);
});
