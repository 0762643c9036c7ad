import { describe, expect, it } from "vitest";
import {
  CallToolParams,
  check,
  Envelope,
  GetPromptParams,
  type Inbound,
  InitializeParams,
  PaginatedParams,
  ReadResourceParams,
  RequestMeta,
} from "./inbound.js";
import { MetaKey } from "./versions.js";

// The hot-path fast checks must accept exactly what their zod schemas accept; every field of a valid value is set,
// alone and in pairs, to every value of a pool of JSON shapes, and both must give the same verdict.
const POOL: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "2.0",
  "debug",
  "loud",
  0,
  1,
  -1,
  1.5,
  true,
  false,
  {},
  [],
  ["x"],
  { a: 1 },
  { k: "v" },
  { name: "a", version: "1" },
  { name: "a" },
  JSON.parse('{"__proto__":{"polluted":1}}'),
];

function variants(base: Record<string, unknown>): unknown[] {
  const fields = [...Object.keys(base), "extra"];
  const out: unknown[] = [base, ...POOL];
  for (const field of fields) {
    for (const value of POOL) {
      out.push({ ...base, [field]: value });
      for (const other of fields) {
        if (other === field) continue;
        for (const second of POOL) out.push({ ...base, [field]: value, [other]: second });
      }
    }
  }
  return out;
}

const cases: [string, Inbound<unknown>, Record<string, unknown>][] = [
  ["Envelope", Envelope as Inbound<unknown>, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }],
  [
    "RequestMeta",
    RequestMeta as Inbound<unknown>,
    {
      [MetaKey.protocolVersion]: "2026-07-28",
      [MetaKey.clientCapabilities]: {},
      [MetaKey.clientInfo]: { name: "c", version: "1" },
      [MetaKey.logLevel]: "debug",
      progressToken: "p",
    },
  ],
  [
    "InitializeParams",
    InitializeParams as Inbound<unknown>,
    { protocolVersion: "2025-11-25", capabilities: { sampling: {} }, clientInfo: { name: "c", version: "1" } },
  ],
  ["PaginatedParams", PaginatedParams as Inbound<unknown>, { cursor: "c" }],
  ["CallToolParams", CallToolParams as Inbound<unknown>, { name: "t", arguments: { a: 1 } }],
  ["ReadResourceParams", ReadResourceParams as Inbound<unknown>, { uri: "x://y" }],
  ["GetPromptParams", GetPromptParams as Inbound<unknown>, { name: "p", arguments: { k: "v" } }],
];

describe.each(cases)("%s fast check", (_name, inbound, base) => {
  it("accepts exactly what its zod schema accepts", () => {
    const disagreements = variants(base).filter(
      (value) => inbound.accepts(value) !== inbound.schema().safeParse(value).success,
    );
    expect(disagreements).toEqual([]);
  });

  it("hands back the value itself when the fast check accepts it, and zod's issues when not", () => {
    const accepted = check(inbound, base);
    expect(accepted).toEqual({ success: true, data: base });
    expect(accepted.success && accepted.data).toBe(base);
    const rejected = check(inbound, []);
    expect(rejected.success).toBe(false);
    expect(rejected.success ? [] : rejected.error.issues.length).toBeGreaterThan(0);
  });
});
