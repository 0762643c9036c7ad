import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Tool } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openApiServer, openApiTools } from "./tools.js";

// GitHub's published OpenAPI document (3.0, over a thousand operations, recursive and shared schemas) loads, lists
// in both eras, and every listed schema is one Ajv compiles in strict mode, every strict check on.

const require = createRequire(import.meta.url);
const TEXT = readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8");
// What the document holds, counted from its own text: each operation is one tool.
const RAW = JSON.parse(TEXT) as { paths: Record<string, Record<string, unknown>> };
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const OPERATIONS = Object.values(RAW.paths).flatMap((item) => METHODS.filter((method) => item[method] !== undefined));

function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, logger: false });
  formats.default(ajv);
  return ajv;
}

async function listed(version: "2025-11-25" | "2026-07-28"): Promise<Tool[]> {
  const client = await createTestClient(await openApiServer({ document: TEXT }), { protocolVersion: version });
  try {
    return await client.listTools();
  } finally {
    client.close();
  }
}

describe("GitHub's OpenAPI document", () => {
  it("lists one tool per operation in both eras, alike", async () => {
    expect(OPERATIONS.length).toBeGreaterThan(1000);
    const handshake = await listed("2025-11-25");
    expect(handshake).toHaveLength(OPERATIONS.length);
    expect(new Set(handshake.map((tool) => tool.name)).size).toBe(handshake.length);
    for (const tool of handshake) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
    const stateless = await listed("2026-07-28");
    expect(stateless.map((tool) => tool.name)).toEqual(handshake.map((tool) => tool.name));
    const repo = handshake.find((tool) => tool.name === "repos_get");
    expect(repo?.inputSchema).toMatchObject({ required: ["owner", "repo"] });
    expect(repo?.annotations).toMatchObject({ readOnlyHint: true });
  });

  // Ajv compiles the 2,000-odd listed schemas (10 MB) once: a minute on a busy 2-core machine.
  it("lists only schemas Ajv compiles in strict mode, each an object", async () => {
    const ajv = strictAjv();
    const refused: string[] = [];
    let outputs = 0;
    for (const tool of await listed("2026-07-28")) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        if (schema === undefined) continue;
        expect(schema.type).toBe("object");
        try {
          ajv.compile(schema);
          ajv.removeSchema(schema);
        } catch (error) {
          refused.push(`${tool.name}: ${(error as Error).message}`);
        }
      }
      if (tool.outputSchema) outputs++;
    }
    expect(refused).toEqual([]);
    expect(outputs).toBeGreaterThan(500);
  });

  it("filters by tag and method, and a call validates its arguments before any request", async () => {
    const { tools, document } = await openApiTools({
      document: TEXT,
      tags: ["issues"],
      methods: ["GET"],
      baseUrl: "http://127.0.0.1:9",
    });
    expect(tools.length).toBeGreaterThan(10);
    expect(
      document.operations.every((operation) => operation.method === "get" && operation.tags.includes("issues")),
    ).toBe(true);
    const server = await openApiServer({
      document: TEXT,
      tags: ["issues"],
      methods: ["get"],
      baseUrl: "http://127.0.0.1:9",
    });
    const client = await createTestClient(server);
    try {
      const result = await client.callTool("issues_get", { owner: "octocat" });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("repo");
    } finally {
      client.close();
    }
  });
});
