import { createMemoryEngine } from "@toolsmith/core/engine";
import { createTestClient } from "@toolsmith/core/testing";
import { afterEach, expect, it } from "vitest";
import { createNotesServer, SCOPES } from "./notes.js";

// Each person's notes, as every process of the server keeps them: two servers on one engine stand for two processes
// on one Redis, and a caller's notes are the same through either, and nobody else's.
const engines: ReturnType<typeof createMemoryEngine>[] = [];
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close();
});

function twoProcesses() {
  const engine = createMemoryEngine();
  engines.push(engine);
  return [createNotesServer({ engine }), createNotesServer({ engine })] as const;
}

const as = (subject: string) => ({ auth: { subject, scopes: [...SCOPES] } });

it("keeps a person's notes for every process of the server, and for that person alone", async () => {
  const [a, b] = twoProcesses();
  const aliceOnA = await createTestClient(a, as("alice"));
  const aliceOnB = await createTestClient(b, as("alice"));
  const bobOnB = await createTestClient(b, as("bob"));
  expect((await aliceOnA.callTool("add_note", { text: "buy milk" })).structuredContent).toEqual({ count: 1 });
  expect((await aliceOnB.callTool("list_notes")).structuredContent).toEqual({ notes: ["buy milk"] });
  expect((await bobOnB.callTool("list_notes")).structuredContent).toEqual({ notes: [] });
  expect((await aliceOnB.callTool("add_note", { text: "call mum" })).structuredContent).toEqual({ count: 2 });
  expect((await aliceOnA.callTool("list_notes")).structuredContent).toEqual({ notes: ["buy milk", "call mum"] });
});

it("keeps at most 100 notes a person: one more is the tool's error, and nothing is kept", async () => {
  const [a] = twoProcesses();
  const alice = await createTestClient(a, as("alice"));
  for (let n = 1; n <= 100; n++) await alice.callTool("add_note", { text: `note ${n}` });
  const refused = await alice.callTool("add_note", { text: "one more" });
  expect(refused.isError).toBe(true);
  const { notes } = (await alice.callTool("list_notes")).structuredContent as { notes: string[] };
  expect([notes.length, notes.at(-1)]).toEqual([100, "note 100"]);
});
