import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { OpenApiError } from "./load.js";
import { openApiServer, openApiTools } from "./tools.js";

// Bad documents and large ones: recursion, $ref loops, external references, 10,000 operations, clashing names.

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: "3.1.0", info: { title: "t", version: "1" }, paths, components: { schemas } };
}

function bodyOp(id: string, schema: unknown): Record<string, unknown> {
  return {
    post: {
      operationId: id,
      requestBody: { required: true, content: { "application/json": { schema } } },
      responses: { 200: { description: "ok", content: { "application/json": { schema } } } },
    },
  };
}

// Counts schema nodes (objects) in a produced schema.
function nodes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + nodes(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Object.values(value).reduce((sum: number, item) => sum + nodes(item), 0);
}

describe("bad input and limits", () => {
  it("cuts a recursive schema and a $ref loop where they repeat, and says so", async () => {
    const tree = {
      type: "object",
      properties: {
        name: { type: "string" },
        children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
      },
    };
    const a = { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } };
    const b = { type: "object", properties: { a: { $ref: "#/components/schemas/A" } } };
    const document = doc(
      {
        "/tree": bodyOp("tree", { $ref: "#/components/schemas/Tree" }),
        "/loop": bodyOp("loop", { $ref: "#/components/schemas/A" }),
      },
      { Tree: tree, A: a, B: b },
    );
    const { document: loaded } = await openApiTools({ document, baseUrl: "http://127.0.0.1:9" });
    const [treeOp, loopOp] = loaded.operations;
    expect(treeOp?.input).toEqual({
      type: "object",
      properties: {
        body: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: {} } },
        },
      },
      required: ["body"],
    });
    expect(treeOp?.cuts).toEqual(["a recursive schema cut where it repeats"]);
    expect(loopOp?.output).toEqual({ type: "object", properties: { b: { type: "object", properties: { a: {} } } } });
    const client = await createTestClient(await openApiServer({ document, baseUrl: "http://127.0.0.1:9" }));
    try {
      const listed = await client.listTools();
      expect(listed.find((tool) => tool.name === "tree")?.description).toBe(
        "POST /tree\n\n(Schema shortened: a recursive schema cut where it repeats.)",
      );
    } finally {
      client.close();
    }
  });

  it("leaves out a const, enum or example whose $ref refers to itself or is shared past the bounds", async () => {
    // The dereferencer resolves a $ref inside a value too: Node's holds itself, and Fan's 2^40 paths share 40 objects.
    const node = { type: "object", properties: { next: { $ref: "#/components/schemas/Node" } } };
    const fans: Record<string, unknown> = { Fan0: { leaf: true } };
    for (let i = 1; i <= 40; i++)
      fans[`Fan${i}`] = [{ $ref: `#/components/schemas/Fan${i - 1}` }, { $ref: `#/components/schemas/Fan${i - 1}` }];
    const self = { $ref: "#/components/schemas/Node" };
    const schema = {
      type: "object",
      properties: {
        a: { type: "object", example: self },
        b: { type: "object", const: self },
        c: { enum: [self, "kept"] },
        d: { type: "array", examples: [{ $ref: "#/components/schemas/Fan40" }] },
        e: { type: "object", example: { plain: [1, { two: 2 }] } },
      },
    };
    const document = doc({ "/values": bodyOp("values", schema) }, { Node: node, ...fans });
    const { document: loaded } = await openApiTools({ document, baseUrl: "http://127.0.0.1:9" });
    const properties = loaded.operations[0]?.input.properties as Record<string, Record<string, unknown>> | undefined;
    const body = properties?.body;
    expect(body?.properties).toEqual({
      a: { type: "object" },
      b: { type: "object" },
      c: {},
      d: { type: "array" },
      e: { type: "object", examples: [{ plain: [1, { two: 2 }] }] },
    });
    expect(loaded.operations[0]?.cuts).toContain(
      "a value (const, enum or example) that refers to itself or is too large left out",
    );
    const client = await createTestClient(await openApiServer({ document, baseUrl: "http://127.0.0.1:9" }));
    try {
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(["values"]);
    } finally {
      client.close();
    }
  });

  it("keeps a parameter named body, requestBody or after Object.prototype's keys apart from the body", async () => {
    const document = doc({
      "/names": {
        post: {
          operationId: "names",
          parameters: [
            { name: "body", in: "query", schema: { type: "string" } },
            { name: "requestBody", in: "query", required: true, schema: { type: "integer" } },
            { name: "constructor", in: "query", schema: { type: "string" } },
            { name: "toString", in: "header", schema: { type: "string" } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
          responses: { 204: { description: "ok" } },
        },
      },
    });
    const { document: loaded } = await openApiTools({ document, baseUrl: "http://127.0.0.1:9" });
    const [operation] = loaded.operations;
    expect(operation?.input).toEqual({
      type: "object",
      properties: {
        body: { type: "string" },
        requestBody: { type: "integer" },
        constructor: { type: "string" },
        toString: { type: "string" },
        requestBody_2: { type: "object" },
      },
      required: ["requestBody", "requestBody_2"],
    });
    expect(Object.fromEntries(operation?.placements ?? [])).toEqual({
      body: { in: "query", name: "body", style: "form", explode: true },
      requestBody: { in: "query", name: "requestBody", style: "form", explode: true },
      constructor: { in: "query", name: "constructor", style: "form", explode: true },
      toString: { in: "header", name: "toString", style: "simple", explode: false },
    });
    expect(operation?.body).toMatchObject({ key: "requestBody_2", kind: "json", mediaType: "application/json" });
  });

  it("never says a credential from headers(ctx) or the baseUrl in an error, nor sends a header fetch refuses", async () => {
    let requests = 0;
    const host = createHttpServer((_request, response) => {
      requests++;
      response.end("ok");
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const document = doc({
      "/x": {
        get: {
          operationId: "x",
          parameters: [{ name: "X-Thing", in: "header", schema: { type: "string" } }],
          responses: { 200: { description: "ok" } },
        },
      },
    });
    try {
      // Headers.set throws on these quoting the value, and fetch on a URL with credentials quoting the URL.
      for (const secret of ["Bearer SEC\nRET", "SECRET\u0100"]) {
        const server = await openApiServer({ document, baseUrl: base, headers: () => ({ authorization: secret }) });
        const client = await createTestClient(server);
        try {
          const result = await client.callTool("x", {});
          expect(result).toMatchObject({
            isError: true,
            content: [{ type: "text", text: 'the header "authorization" from headers(ctx) cannot be sent' }],
          });
        } finally {
          client.close();
        }
      }
      const client = await createTestClient(await openApiServer({ document, baseUrl: base }));
      try {
        expect(await client.callTool("x", { "X-Thing": "a\r\nX-Evil: 1" })).toMatchObject({
          isError: true,
          content: [
            {
              text: 'header parameter "X-Thing" cannot be sent: a header holds no line break or character past U+00FF',
            },
          ],
        });
      } finally {
        client.close();
      }
      const withUser = openApiTools({ document, baseUrl: base.replace("//", "//user:SECRET@") });
      await expect(withUser).rejects.toThrow(OpenApiError);
      await expect(withUser).rejects.not.toThrow(/SECRET/);
      expect(requests).toBe(0);
    } finally {
      host.close();
    }
  });

  it("bounds each schema's depth and nodes", async () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 40; i++) deep = { type: "object", properties: { next: deep } };
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`p${i}`, { type: "string" }])),
    };
    const { document } = await openApiTools({
      document: doc({ "/deep": bodyOp("deep", deep), "/wide": bodyOp("wide", wide) }),
      baseUrl: "http://127.0.0.1:9",
    });
    const [deepOp, wideOp] = document.operations;
    expect(JSON.stringify(deepOp?.input).split('"next"').length - 1).toBe(11);
    expect(deepOp?.cuts).toEqual(["schemas nested deeper than 12 levels"]);
    expect(nodes(wideOp?.output)).toBeLessThanOrEqual(4001 + 1);
    expect(wideOp?.cuts).toEqual(["schema nodes past 4000"]);
  });

  it("never fetches an external $ref unless allowed", async () => {
    const requests: string[] = [];
    const pet = { type: "object", properties: { name: { type: "string" } } };
    const host = createHttpServer((request, response) => {
      requests.push(request.url ?? "");
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(pet));
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/pet.json`;
      const document = doc({ "/pets": bodyOp("addPet", { $ref: url }) });
      const closed = await openApiTools({ document, baseUrl: "http://127.0.0.1:9" });
      expect(requests).toEqual([]);
      expect(closed.document.operations[0]?.output).toEqual({
        type: "object",
        properties: { result: {} },
        required: ["result"],
      });
      expect(closed.document.operations[0]?.cuts).toEqual([`a reference not resolved (${url})`]);
      await expect(openApiTools({ document, baseUrl: "http://127.0.0.1:9", externalRefs: true })).rejects.toThrow(
        /could not be dereferenced: Unable to resolve \$ref pointer/,
      );
      expect(requests).toEqual([]);
      const open = await openApiTools({
        document,
        baseUrl: "http://127.0.0.1:9",
        externalRefs: true,
        externalRefsPrivateHosts: true,
      });
      expect(requests).toEqual(["/pet.json"]);
      expect(open.document.operations[0]?.output).toEqual(pet);
    } finally {
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  it("reads a $ref to a local file only with externalFileRefs, and one to a URL only with externalRefs", async () => {
    const requests: string[] = [];
    const pet = { type: "object", properties: { name: { type: "string" } } };
    const host = createHttpServer((request, response) => {
      requests.push(request.url ?? "");
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(pet));
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    const folder = await mkdtemp(join(tmpdir(), "openapi-refs-"));
    try {
      const web = `http://127.0.0.1:${(host.address() as AddressInfo).port}/pet.json`;
      await writeFile(join(folder, "pet.json"), JSON.stringify(pet));
      // A file that names a URL: reading the file does not open the web to it.
      await writeFile(join(folder, "onward.json"), JSON.stringify({ $ref: web }));
      const file = pathToFileURL(join(folder, "pet.json")).href;
      const base = { baseUrl: "http://127.0.0.1:9", externalRefsPrivateHosts: true };
      const byFile = doc({ "/pets": bodyOp("addPet", { $ref: file }) });
      const relative = doc({ "/pets": bodyOp("addPet", { $ref: "./pet.json" }) });
      const byUrl = doc({ "/pets": bodyOp("addPet", { $ref: web }) });
      const closed = await openApiTools({ ...base, document: byFile });
      expect(closed.document.operations[0]?.cuts).toEqual([`a reference not resolved (${file})`]);
      await expect(openApiTools({ ...base, document: byFile, externalRefs: true })).rejects.toThrow(
        `the $ref "${file}" is not read: it needs externalFileRefs`,
      );
      await expect(openApiTools({ ...base, document: byUrl, externalFileRefs: true })).rejects.toThrow(
        `the $ref "${web}" is not read: it needs externalRefs`,
      );
      await expect(openApiTools({ ...base, document: relative, externalRefs: true })).rejects.toThrow(
        'the $ref "./pet.json" is not read: it needs externalFileRefs',
      );
      const ftp = doc({ "/pets": bodyOp("addPet", { $ref: "ftp://example.com/pet.json" }) });
      await expect(openApiTools({ ...base, document: ftp, externalFileRefs: true })).rejects.toThrow(
        'the $ref "ftp://example.com/pet.json" is not read: only http(s) and file references are',
      );
      const onward = doc({ "/pets": bodyOp("addPet", { $ref: "./onward.json" }) });
      const documentUrl = pathToFileURL(join(folder, "openapi.json")).href;
      await expect(openApiTools({ ...base, document: onward, documentUrl, externalFileRefs: true })).rejects.toThrow(
        OpenApiError,
      );
      expect(requests).toEqual([]);
      for (const document of [byFile, relative]) {
        const open = await openApiTools({ ...base, document, documentUrl, externalFileRefs: true });
        expect(open.document.operations[0]?.output).toEqual(pet);
      }
      const both = await openApiTools({
        ...base,
        document: onward,
        documentUrl,
        externalFileRefs: true,
        externalRefs: true,
      });
      expect(both.document.operations[0]?.output).toEqual(pet);
      expect(requests).toEqual(["/pet.json"]);
    } finally {
      await rm(folder, { recursive: true, force: true });
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  it("loads a document of 10,000 operations, bounded in each schema", async () => {
    const shared = { $ref: "#/components/schemas/Item" };
    const item = {
      type: "object",
      properties: { id: { type: "integer" }, parent: { $ref: "#/components/schemas/Item" } },
    };
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) {
      paths[`/items${i}/{id}`] = {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        get: {
          operationId: `get-item-${i}`,
          responses: { 200: { description: "ok", content: { "application/json": { schema: shared } } } },
        },
        put: { ...(bodyOp("", shared).post as object), operationId: `put item ${i}` },
      };
    }
    const { tools, document } = await openApiTools({
      document: doc(paths, { Item: item }),
      baseUrl: "http://127.0.0.1:9",
    });
    expect(tools).toHaveLength(10_000);
    expect(document.skipped).toEqual([]);
    expect(tools[1]?.name).toBe("put_item_0");
    const largest = Math.max(
      ...document.operations.map((operation) => nodes(operation.input) + nodes(operation.output)),
    );
    expect(largest).toBeLessThan(20);
  });

  it("refuses names that clash after sanitising, naming both; keeps long ones apart", async () => {
    const ok = { responses: { 204: { description: "none" } } };
    await expect(
      openApiTools({
        document: doc({ "/a": { get: { ...ok, operationId: "a/b" } }, "/b": { get: { ...ok, operationId: "a b" } } }),
        baseUrl: "http://x.test",
      }),
    ).rejects.toThrow(
      new OpenApiError(
        'operations "a/b" and "a b" both become the tool "a_b": give one another name (overrides: { "a b": { name: "…" } })',
      ),
    );
    const renamed = await openApiTools({
      document: doc({ "/a": { get: { ...ok, operationId: "a/b" } }, "/b": { get: { ...ok, operationId: "a b" } } }),
      baseUrl: "http://x.test",
      overrides: { "a b": { name: "ab" } },
    });
    expect(renamed.tools.map((tool) => tool.name)).toEqual(["a_b", "ab"]);
    const long = "x".repeat(70);
    const { tools } = await openApiTools({
      document: doc({
        "/a": { get: { ...ok, operationId: `${long}1` } },
        "/b": { get: { ...ok, operationId: `${long}2` } },
      }),
      baseUrl: "http://x.test",
    });
    expect(tools.map((tool) => tool.name.length)).toEqual([64, 64]);
    expect(tools[0]?.name).not.toBe(tools[1]?.name);
  });

  it("takes YAML text, and refuses what is not OpenAPI 3", async () => {
    const text = stringify(doc({ "/a": { get: { operationId: "a", responses: { 204: { description: "none" } } } } }));
    expect((await openApiTools({ document: text, baseUrl: "http://x.test" })).tools.map((tool) => tool.name)).toEqual([
      "a",
    ]);
    await expect(openApiTools({ document: { swagger: "2.0" } })).rejects.toThrow(
      'only OpenAPI 3.0 and 3.1 documents are taken (this one says "2.0")',
    );
    await expect(openApiTools({ document: "{ nope" })).rejects.toThrow(/neither JSON nor YAML/);
    await expect(openApiTools({ document: doc({}) })).rejects.toThrow(/no baseUrl/);
  });

  it("compiles a tool's schema on its first call: a default under oneOf is left out, a refused one fails that tool only", async () => {
    const branchy = {
      type: "object",
      properties: { pick: { oneOf: [{ type: "object", properties: { state: { type: "string", default: "open" } } }] } },
    };
    const lookahead = { type: "object", properties: { code: { type: "string", pattern: "^(?=a)a+$" } } };
    const document = doc({ "/branchy": bodyOp("branchy", branchy), "/lookahead": bodyOp("lookahead", lookahead) });
    const server = await openApiServer({ document, baseUrl: "http://127.0.0.1:9", timeoutMs: 1 });
    const client = await createTestClient(server);
    try {
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(["branchy", "lookahead"]);
      const refused = await client.callTool("lookahead", { body: { code: "aa" } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("the document's schema cannot be used");
      const wrong = await client.callTool("branchy", { body: { pick: "not an object" } });
      expect(wrong.isError).toBe(true);
      expect(JSON.stringify(wrong.content)).not.toContain("cannot be used");
    } finally {
      client.close();
    }
  });
});
