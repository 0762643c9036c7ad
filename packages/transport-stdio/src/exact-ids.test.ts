import { createServer } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { serveLines } from "./in-process.test-util.js";

// Over stdio every reply, the transport's own refusals (an oversized line) included, echoes the id exactly as the
// line carries it; with duplicate "id" keys, the last one, as JSON.parse (and so the server) reads it.

const META = `{"${MetaKey.protocolVersion}":"2026-07-28","${MetaKey.clientCapabilities}":{}}`;
const INITIALIZE = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`;
const INITIALIZED = `{"jsonrpc":"2.0","method":"notifications/initialized"}`;
const IDS = ["9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-1e308", "1.5E+300"];
const LIMIT = 2048;
const PAD = `"pad":"${"p".repeat(LIMIT)}"`;

// Serve `lines` to the end and return every line written to stdout.
async function serve(lines: readonly string[]): Promise<string[]> {
  const s = createServer({ name: "ids", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return serveLines(s, lines, { maxLineBytes: LIMIT });
}

// The reply's id as raw JSON text, and its error code (0 for a result).
function parts(line: string): [string, number] {
  const id = /^\{"jsonrpc":"2\.0","id":(.*?),"(?:error|result)":/.exec(line)?.[1] ?? `(no id in ${line})`;
  return [id, (JSON.parse(line) as { error?: { code: number } }).error?.code ?? 0];
}

describe.each([
  ["handshake era", [INITIALIZE, INITIALIZED], ""],
  ["2026-07-28", [], `,"_meta":${META}`],
] as const)("exact ids over stdio (%s)", (_era, handshake, meta) => {
  const params = (more: string) => `{${[more, meta.slice(1)].filter(Boolean).join(",")}}`;

  it("results, errors and oversized-line refusals carry big, negative and exponent ids as written", async () => {
    const lines = IDS.flatMap((id) => [
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params('"name":"t"')}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"nope","params":${params("")}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params(`"name":"t",${PAD}`)}}`,
    ]);
    const replies = (await serve([...handshake, ...lines])).slice(handshake.length === 0 ? 0 : 1).map(parts);
    expect(replies).toEqual(
      IDS.flatMap((id) => [
        [id, 0],
        [id, -32601],
        [id, -32600],
      ]),
    );
  });

  it("duplicate id keys: every reply carries the last one", async () => {
    const lines = [
      `{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"tools/call","params":${params('"name":"t"')}}`,
      `{"jsonrpc":"2.0","id":8,"method":"nope","id":9007199254740993,"params":${params("")}}`,
      `{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"tools/call","params":${params(`"name":"t",${PAD}`)}}`,
      `{"jsonrpc":"2.0","id":8,"params":${params(PAD)},"\\u0069d":"last","method":"tools/list"}`,
      `{"jsonrpc":"2.0","id":8,"id":null,"method":"tools/call","params":${params(`"name":"t",${PAD}`)}}`,
      `{"jsonrpc":"1.0","id":8,"id":9007199254740993,"method":"tools/list"}`,
    ];
    const replies = (await serve([...handshake, ...lines])).slice(handshake.length === 0 ? 0 : 1).map(parts);
    expect(replies).toEqual([
      ["-1e308", 0],
      ["9007199254740993", -32601],
      ["-1e308", -32600],
      ['"last"', -32600],
      ["null", -32600],
      ["9007199254740993", -32600],
    ]);
  });
});
