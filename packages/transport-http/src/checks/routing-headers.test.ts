import { describe, expect, it } from "vitest";
import { decodeHeader, headerParams } from "./routing-headers.js";

describe("routing header values", () => {
  it("plain values pass as they are; =?base64?…?= decodes strict base64 of UTF-8, else is invalid", () => {
    expect(decodeHeader("tools/call")).toBe("tools/call");
    expect(decodeHeader("=?base64?SGVsbG8=?=")).toBe("Hello");
    expect(decodeHeader("=?base64?SGVsbG8?=")).toBeUndefined(); // missing padding
    expect(decodeHeader("=?base64?SGV$bG8=?=")).toBeUndefined(); // not base64
    expect(decodeHeader("=?base64?/w==?=")).toBeUndefined(); // not UTF-8
    expect(decodeHeader("=?base64?SGVsbG8=")).toBe("=?base64?SGVsbG8="); // no closing marker: a literal
  });

  it("finds x-mcp-header properties through properties keys only, never through items", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        nested: { type: "object", properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } } },
        list: { type: "array", items: { type: "string", "x-mcp-header": "Nope" } },
      },
    };
    expect(headerParams(schema)).toEqual([
      { header: "region", path: ["region"] },
      { header: "tenant", path: ["nested", "tenant"] },
    ]);
  });
});
