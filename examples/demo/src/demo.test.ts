import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allProcesses, run } from "../../../scripts/child-processes.js";

const demoPath = fileURLToPath(new URL("../dist/demo.js", import.meta.url));

type Era = "handshake" | "stateless";
/** One JSON-RPC message as the demo prints it, with the fields this test reads. */
interface Wire {
  method?: string;
  id?: string | number;
  params?: { _meta?: Record<string, unknown> };
  result?: {
    protocolVersion?: string;
    serverInfo?: { name?: string };
    supportedVersions?: string[];
    _meta?: Record<string, { name?: string } | undefined>;
  };
}
interface Session {
  title: string;
  sent: Wire[];
  received: Wire[];
  notes: string[];
}

// What the demo's titles claim, session by session: the example folder, the name its server gives, the era.
const CLAIMED: [example: string, serverName: string, era: Era][] = [
  ["quickstart", "quickstart", "handshake"],
  ["word-tools", "word-tools", "stateless"],
  ["wiretap", "wiretap-mcp", "handshake"],
  ["notes", "notes", "stateless"], // "auto": the official client probes server/discover first and keeps 2026-07-28
  ["travel-desk", "travel-desk", "handshake"],
  ["travel-desk", "travel-desk", "stateless"],
];
const STATELESS = "2026-07-28";
const HANDSHAKE = "2025-11-25";

/** The demo's stdout cut at its `== title ==` lines, each wire line parsed by its arrow. */
function sessionsOf(stdout: string): Session[] {
  const sessions: Session[] = [];
  for (const line of stdout.split("\n")) {
    const title = /^== (.*) ==$/.exec(line)?.[1];
    if (title !== undefined) sessions.push({ title, sent: [], received: [], notes: [] });
    const session = sessions.at(-1);
    if (title !== undefined || session === undefined) continue;
    if (line.startsWith("→ ")) session.sent.push(JSON.parse(line.slice(2)));
    else if (line.startsWith("← ")) session.received.push(JSON.parse(line.slice(2)));
    else if (line.startsWith("   (")) session.notes.push(line.trim());
  }
  return sessions;
}

/** How many replies (result or error, no method) carry `id` among `messages`. */
function repliesTo(messages: Wire[], id: string | number): number {
  return messages.filter((message) => message.method === undefined && message.id === id).length;
}

/** The live processes left in `group`, ended by SIGKILL here so none outlives the test file. */
function leftIn(group: number): number[] {
  const left = allProcesses().filter((info) => info.pgid === group && !info.zombie);
  for (const info of left) process.kill(info.pid, "SIGKILL");
  return left.map((info) => info.pid);
}

describe("the README demo (`pnpm demo`), run as a user runs it", () => {
  it("drives every example it names in its era, prints the wire both ways, exits 0 and leaves nothing running", async () => {
    // As `pnpm demo` runs it, in a process group of its own so what it started can be found after it.
    const { code, stdout, stderr, pid } = await run(process.execPath, [demoPath], { detached: true });
    expect(leftIn(pid as number)).toEqual([]);
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    // The servers' stderr passes through: wiretap announces itself there; nothing else may.
    expect(stderr).toBe("wiretap-mcp: listening on stdio\n");

    const sessions = sessionsOf(stdout);
    expect(sessions.map((session) => session.title.split(/[ ,]/)[0])).toEqual(CLAIMED.map(([example]) => example));
    for (const [index, [, serverName, era]] of CLAIMED.entries()) {
      const { title, sent, received } = sessions[index] as Session;
      const first = received.find((message) => message.id === sent[0]?.id)?.result ?? {};
      if (era === "handshake") {
        expect(sent[0]?.method, title).toBe("initialize");
        expect(first, title).toMatchObject({ protocolVersion: HANDSHAKE, serverInfo: { name: serverName } });
        expect(
          sent.map((message) => message.method),
          title,
        ).toContain("notifications/initialized");
      } else {
        expect(sent[0]?.method, title).toBe("server/discover");
        expect(first._meta?.["io.modelcontextprotocol/serverInfo"]?.name, title).toBe(serverName);
        expect(first.supportedVersions, title).toContain(STATELESS);
        expect(
          sent.map((message) => message.method),
          title,
        ).not.toContain("initialize");
        for (const request of sent.filter((message) => message.method !== undefined && message.id !== undefined)) {
          expect(request.params?._meta, `${title}: ${request.method}`).toMatchObject({
            "io.modelcontextprotocol/protocolVersion": STATELESS,
          });
        }
      }
      // A tools/call crossed both ways, and every request either side sent got exactly one reply from the other.
      const call = sent.find((message) => message.method === "tools/call");
      expect(call, title).toBeDefined();
      expect(repliesTo(received, call?.id as string | number), title).toBe(1);
      for (const [asks, answers] of [
        [sent, received],
        [received, sent],
      ] as const) {
        for (const request of asks.filter((message) => message.method !== undefined && message.id !== undefined)) {
          expect(repliesTo(answers, request.id as string | number), `${title}: ${request.method}`).toBe(1);
        }
      }
    }
    // Both eras with the same server: travel-desk's input_required round trip asks the "user" in each.
    for (const index of [4, 5]) {
      expect(
        sessions[index]?.notes.some((note) => note.startsWith("(the user is asked: Book ")),
        String(index),
      ).toBe(true);
    }
    // The one failure the demo shows on purpose; any other means a session broke.
    const threw = sessions.flatMap((session) => session.notes.filter((note) => note.startsWith("(the client threw")));
    expect(threw).toEqual(["(the client threw: Unknown tool: no_such_tool)"]);
  });
});
