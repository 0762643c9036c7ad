import { once } from "node:events";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestClient } from "@toolsmith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, openApiTools } from "./tools.js";

// A caller's argument must never move a request off the configured host. A document whose path does not begin with
// "/" (which OpenAPI requires) would have its first value appended to the base URL's authority: with the base
// http://127.0.0.1:<port / 10> and a path `{tenant}/whoami`, the tenant "<port % 10>" reached another port. The
// target is a real node:http server on that other port, which counts what reaches it.

let target: HttpServer;
let port: number;
let reached = 0;

beforeAll(async () => {
  target = createHttpServer((_req, res) => {
    reached++;
    res.writeHead(200, { "content-type": "application/json" }).end('{"secret":"of another service"}');
  });
  target.listen(0, "127.0.0.1");
  await once(target, "listening");
  port = (target.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => target.close(resolve)));

function document(path: string) {
  return {
    openapi: "3.1.0",
    info: { title: "tenants", version: "1.0.0" },
    paths: {
      [path]: {
        get: {
          operationId: "whoami",
          parameters: [{ name: "tenant", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  };
}

describe("a caller's argument and the host", () => {
  it("an operation whose path does not begin with / is left out: no value can reach another port", async () => {
    const options = { document: document("{tenant}/whoami"), baseUrl: `http://127.0.0.1:${Math.floor(port / 10)}` };
    const { document: loaded } = await openApiTools(options);
    expect(loaded.skipped).toEqual([{ id: "whoami", reason: expect.stringContaining('does not begin with "/"') }]);
    const mcp = await createTestClient(await openApiServer(options));
    try {
      const result = await mcp.callTool("whoami", { tenant: String(port % 10) }).catch((error: Error) => error);
      expect(JSON.stringify(result)).not.toContain("of another service");
      expect(reached).toBe(0);
    } finally {
      mcp.close();
    }
  });

  it("a path that begins with / keeps every value inside its segment, on the configured host", async () => {
    const options = { document: document("/{tenant}/whoami"), baseUrl: `http://127.0.0.1:${port}` };
    const mcp = await createTestClient(await openApiServer(options));
    try {
      for (const tenant of ["@evil.example", "//evil.example", ":1", "x?y#z"]) {
        expect((await mcp.callTool("whoami", { tenant })).isError).toBeFalsy();
      }
      expect(reached).toBe(4);
    } finally {
      mcp.close();
    }
  });
});
