import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { CHATTY, startCli } from "./run-cli.test-util.js";

// Build first. What a server says as progress (a notifications/progress message, or a task's status message) reaches
// the terminal with its control characters escaped, as its log messages do: it cannot clear the screen, move the
// cursor, recolour or fake a line.

const ESCAPED = "\\u001b[2J\\u001b[Hwiped\\r\\u001b[2Kdone\\nfaked \\u009b31mred";

describe("a server's progress cannot drive the terminal", () => {
  let server: SpawnedHttp;
  beforeAll(async () => {
    server = await spawnHttp([CHATTY, "--http"]);
  });
  afterAll(() => end(server.child));

  // legacy: a plain call, its progress a notification; modern: a task, its progress the task's status message.
  it.each(["legacy", "modern"])("--era %s", async (era) => {
    const cli = startCli(["call", "--era", era, server.url, "hostile_progress"]);
    const shown = await cli.said(/hostile_progress: [\s\S]*?faked \S+/);
    server.child.kill("SIGUSR2");
    const run = await cli.ended();
    expect([run.code, run.stdout]).toEqual([0, "released\n"]);
    expect(shown[0]).toContain(ESCAPED);
    // Nothing the server sent reached stderr raw: no ESC, no C1 CSI, no carriage return.
    for (const raw of ["\u001b", "\u009b", "\r"]) expect(run.stderr).not.toContain(raw);
  });
});
