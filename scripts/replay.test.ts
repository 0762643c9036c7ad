import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by hand (scripts/replay/README.md)
import { replay, sessionsFor } from "./replay/run.mjs";
// @ts-expect-error: a plain .mjs script
import { STOPPED } from "./replay/transcript.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

interface Session {
  name: string;
  exchanges: { label: string; lines: string[] }[];
}

// The wire replay of this checkout against itself: stdio in three revisions, single-process HTTP in both eras and at
// the front door (the 2025-03-26 HTTP session and Redis are left to the command, for time). What the built servers
// answer must come back the same twice, or the replay could not tell a change from noise.
it("replays the stdio and single-process HTTP sessions of this checkout twice, identically", async () => {
  const sessions = sessionsFor("stdio,http 2025-11-25,http 2026-07-28,http front door");
  const result = await replay({ before: root, after: root, sessions });
  expect(result.report).toEqual([]);
  expect(result.different).toBe(0);
  const played = result.before as Session[];
  expect(played.map((session) => session.name)).toEqual([
    "stdio 2025-11-25",
    "stdio 2025-03-26",
    "stdio 2026-07-28",
    "http 2025-11-25",
    "http 2026-07-28",
    "http front door",
  ]);
  // Every session ran to its end: none stopped on a hang, none waited in vain.
  for (const session of played) {
    const failed = session.exchanges.filter((e) => e.label === STOPPED || e.lines.some((l) => l.startsWith("! ")));
    expect(failed, session.name).toEqual([]);
  }
  expect(result.compared).toBeGreaterThan(500);
});
