import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { replay } from "../../../scripts/stdio-replay.js";
import { until } from "../../../scripts/wait.js";
// From source: @toolsmith/vitest lowers its TC39 decorators (vitest.config.ts).
import { LINE_CAP, UNTAPPED, WIRE_CAP, Wiretap } from "./wiretap.js";

const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));

// The session the seed drives by hand with printf.
const SEED_SESSION = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bash","version":"5.3"}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show_wire","arguments":{}}}',
];

function transcriptOf(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[])[0]?.text ?? "";
}

describe("the wire log", () => {
  it("keeps a line over LINE_CAP as its head and a count of the rest, never half a surrogate pair", () => {
    const wiretap = new Wiretap();
    const fits = "f".repeat(LINE_CAP);
    wiretap.record({ direction: "in", line: fits, phase: "operation" });
    wiretap.record({ direction: "out", line: `${"x".repeat(LINE_CAP)}tail`, phase: "operation" });
    wiretap.record({ direction: "out", line: `${"e".repeat(LINE_CAP - 1)}😀${"e".repeat(10)}`, phase: "operation" });
    expect(wiretap.entries.map((entry) => entry.line)).toEqual([
      fits,
      `${"x".repeat(LINE_CAP)}… (+4 chars)`,
      `${"e".repeat(LINE_CAP - 1)}… (+12 chars)`,
    ]);
  });

  it("holds at most WIRE_CAP lines of about LINE_CAP characters, whatever crosses the wire", () => {
    const wiretap = new Wiretap();
    for (let i = 0; i < 200; i++) wiretap.record({ direction: "in", line: "\\".repeat(100_000), phase: "operation" });
    expect(wiretap.entries).toHaveLength(WIRE_CAP);
    const kept = wiretap.entries.reduce((sum, entry) => sum + entry.line.length, 0);
    expect(kept).toBeLessThanOrEqual(WIRE_CAP * (LINE_CAP + 20));
  });
});

describe("wiretap over a real pipe", () => {
  it("shows the seed's session: initialization, the phase boundary, and last the request that asked", async () => {
    const { stdout } = await replay(serverPath, SEED_SESSION);
    expect(stdout).toHaveLength(3);
    const answer = JSON.parse(stdout[2] as string);
    expect(answer.id).toBe(2);
    const lines = transcriptOf(answer.result).split("\n");
    expect(lines[0]).toBe("negotiated protocol: 2025-11-25");
    expect(lines[1]).toBe("wire transcript — 6 message(s), 0 dropped (cap 64)");
    expect(lines.slice(2)).toEqual([
      `[initialization] → ${SEED_SESSION[0]}`,
      `[initialization] ← ${stdout[0]}`,
      `[initialization] → ${SEED_SESSION[1]}`,
      `[operation] → ${SEED_SESSION[2]}`,
      `[operation] ← ${stdout[1]}`,
      `[operation] → ${SEED_SESSION[3]}`,
    ]);
  });

  it("keeps the last 64 lines and counts the ones it dropped", async () => {
    const pings = Array.from({ length: 40 }, (_, i) => `{"jsonrpc":"2.0","id":${100 + i},"method":"ping"}`);
    const { stdout } = await replay(serverPath, [...SEED_SESSION.slice(0, 2), ...pings, SEED_SESSION[3] as string]);
    const answer = JSON.parse(stdout.at(-1) as string);
    const lines = transcriptOf(answer.result).split("\n");
    // 1 initialize + 1 reply + 1 notification + 40 pings and 40 replies + the request = 84 lines, 20 dropped.
    expect(lines[1]).toBe("wire transcript — 64 message(s), 20 dropped (cap 64)");
    expect(lines).toHaveLength(2 + 64);
    expect(lines.at(-1)).toBe(`[operation] → ${SEED_SESSION[3]}`);
  });
});

describe.each([
  ["handshake era", "legacy" as const, "2025-11-25"],
  ["stateless era", { pin: "2026-07-28" as const }, "2026-07-28"],
])("wiretap with the official client (%s)", (_era, mode, version) => {
  it("includes the request that asked for the transcript, and a second call includes the first answer", async () => {
    const client = new Client({ name: "wiretap-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    try {
      const tools = (await client.listTools()).tools;
      expect(tools).toEqual([
        expect.objectContaining({
          name: "show_wire",
          title: "Show the wire",
          inputSchema: { type: "object", properties: {}, additionalProperties: false },
        }),
      ]);
      const first = transcriptOf(await client.callTool({ name: "show_wire", arguments: {} }));
      expect(first.split("\n")[0]).toBe(`negotiated protocol: ${version}`);
      const firstLast = first.split("\n").at(-1) ?? "";
      expect(firstLast).toMatch(/^\[operation\] → /);
      const asked = JSON.parse(firstLast.replace(/^\[operation\] → /, ""));
      expect(asked).toMatchObject({ method: "tools/call", params: { name: "show_wire" } });

      const second = transcriptOf(await client.callTool({ name: "show_wire", arguments: {} }));
      const answers = second
        .split("\n")
        .filter((line) => line.startsWith("[operation] ← "))
        .map((line) => JSON.parse(line.replace(/^\[operation\] ← /, "")));
      const firstAnswer = answers.find((reply) => reply.id === asked.id);
      expect(firstAnswer?.result.content[0].text).toBe(first);
    } finally {
      await client.close();
    }
  });

  it("stays bounded over 30 calls in a row, and the last transcript still holds the request and the previous answer", async () => {
    const client = new Client({ name: "wiretap-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    try {
      const transcripts: string[] = [];
      for (let call = 0; call < 30; call++) {
        const result = await client.callTool({ name: "show_wire", arguments: {} });
        const bytes = Buffer.byteLength(JSON.stringify(result));
        expect(bytes, `reply ${call + 1} is ${bytes} bytes`).toBeLessThan(200_000);
        transcripts.push(transcriptOf(result));
      }
      const [previous, last] = transcripts.slice(-2).map((text) => text.split("\n")) as [string[], string[]];
      const askedBy = (lines: string[]) => JSON.parse((lines.at(-1) ?? "").replace(/^\[\w+\] → /, ""));
      // The request that asked for the last transcript is its last line, whole.
      expect(askedBy(last)).toMatchObject({ method: "tools/call", params: { name: "show_wire" } });
      // The previous answer is the line before: too long to keep whole, so its head and a count of the rest.
      const previousId = askedBy(previous).id;
      const answer = last.at(-2) ?? "";
      expect(answer).toMatch(new RegExp(`^\\[\\w+\\] ← \\{"jsonrpc":"2\\.0","id":${previousId},"result":`));
      expect(answer).toMatch(/… \(\+\d+ chars\)$/);
      const head = answer.replace(/^\[\w+\] ← /, "").replace(/… \(\+\d+ chars\)$/, "");
      expect(head).toHaveLength(LINE_CAP);
      expect(head).toContain(JSON.stringify(previous.slice(0, 2).join("\n")).slice(1, -1));
      const rest = Number(/\(\+(\d+) chars\)$/.exec(answer)?.[1]);
      expect(LINE_CAP + rest).toBeGreaterThan(JSON.stringify(previous.join("\n")).length);
    } finally {
      await client.close();
    }
  });
});

describe.each([
  ["handshake era", "legacy" as const, "2025-11-25"],
  ["stateless era", { pin: "2026-07-28" as const }, "2026-07-28"],
])("wiretap --http with the official client (%s)", (_era, mode, version) => {
  it("says on stderr and in show_wire's answer that the tap sees only stdio", async () => {
    const { child, url, stderr } = await spawnHttp([serverPath, "--http"]);
    try {
      await until(() => stderr().includes("only sees stdio traffic"), "wiretap's note on stderr");
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new Client({ name: "wiretap-test", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const lines = transcriptOf(await client.callTool({ name: "show_wire", arguments: {} })).split("\n");
        expect(lines).toEqual([
          `negotiated protocol: ${version}`,
          "wire transcript — 0 message(s), 0 dropped (cap 64)",
          UNTAPPED,
        ]);
      } finally {
        await client.close();
      }
    } finally {
      await end(child);
    }
  });
});
