import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, defineResourceTemplate, ErrorCode, type Server } from "../index.js";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";

const REVISIONS = [...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS];

function newServer(): Server {
  return createServer({ name: "resources-test", version: "1.0.0" });
}

const noop = () => "ok";

describe("resources", () => {
  const seen: { variables: unknown; uri: string }[] = [];
  function server(): Server {
    const built = newServer();
    built.resource({ uri: "docs://text", mimeType: "text/markdown", handler: () => "# Title" });
    built.resource({
      uri: "docs://bytes",
      mimeType: "image/png",
      handler: () => new Uint8Array([0, 1, 2, 253, 254, 255]),
    });
    built.resource({ uri: "docs://object", handler: () => ({ a: 1, list: [true] }) });
    built.resource({ uri: "docs://gone", handler: () => undefined });
    built.resource({
      uriTemplate: "notes://{folder}/{id}",
      handler: (variables, _ctx, uri) => {
        seen.push({ variables: { ...variables }, uri });
        return variables.id === "missing" ? undefined : `note ${variables.id} in ${variables.folder}`;
      },
      list: () => [
        { uri: "notes://work/1", name: "First" },
        { uri: "notes://home/2", name: "Second" },
      ],
    });
    return built;
  }

  it("template variables arrive in the handler, with the uri", async () => {
    seen.length = 0;
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.readResource("notes://work/42");
    expect(result.contents).toEqual([{ uri: "notes://work/42", text: "note 42 in work" }]);
    expect(seen).toEqual([{ variables: { folder: "work", id: "42" }, uri: "notes://work/42" }]);
  });

  it("template list entries appear in resources/list after the static resources", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual([
      "docs://text",
      "docs://bytes",
      "docs://object",
      "docs://gone",
      "notes://work/1",
      "notes://home/2",
    ]);
  });

  it("a string is text contents with the resource's mimeType", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://text")).toEqual({
      contents: [{ uri: "docs://text", mimeType: "text/markdown", text: "# Title" }],
    });
  });

  it("a Uint8Array is a base64 blob", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://bytes")).toEqual({
      contents: [{ uri: "docs://bytes", mimeType: "image/png", blob: "AAEC/f7/" }],
    });
  });

  it("an object is JSON text with mimeType application/json", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://object")).toEqual({
      contents: [{ uri: "docs://object", mimeType: "application/json", text: '{"a":1,"list":[true]}' }],
    });
  });

  for (const protocolVersion of HANDSHAKE_VERSIONS) {
    it(`${protocolVersion}: not found is -32002 with data {uri}`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const uri of ["docs://nowhere", "docs://gone", "notes://work/missing", "other://x"]) {
        const error = await rpcError(client.readResource(uri));
        expect(error.code).toBe(-32002);
        expect(error.data).toEqual({ uri });
      }
    });
  }

  it("2026-07-28: not found is -32602 with data {uri}, never empty contents", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const uri of ["docs://nowhere", "docs://gone", "notes://work/missing", "other://x"]) {
      const error = await rpcError(client.readResource(uri));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ uri });
    }
  });
});

describe("resources a template lists", () => {
  const icons = [{ src: "https://example.com/icon.png", mimeType: "image/png" }];

  for (const [protocolVersion, title, withIcons] of [
    ["2025-03-26", false, false],
    ["2025-06-18", true, false],
    ["2025-11-25", true, true],
    ["2026-07-28", true, true],
  ] as const) {
    it(`${protocolVersion}: resources a template lists are shaped like the static ones`, async () => {
      const listed = newServer();
      listed.resource({
        uriTemplate: "n://{id}",
        handler: () => "x",
        list: () => [{ uri: "n://1", name: "one", title: "One", icons }],
      });
      const client = await createTestClient(listed, { protocolVersion });
      const [resource] = await client.listResources();
      expect(resource).toMatchObject({ uri: "n://1", name: "one" });
      expect(resource?.title !== undefined).toBe(title);
      expect(resource?.icons !== undefined).toBe(withIcons);
    });
  }
});

describe("reading: the variables are validated and coerced before the handler sees them", () => {
  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: z.coerce.number() hands the handler a number`, async () => {
      const seen: unknown[] = [];
      const server = newServer();
      server.resource(
        defineResourceTemplate({
          uriTemplate: "notes://{folder}/{id}",
          input: { folder: z.string(), id: z.coerce.number().int() },
          handler: (variables, _ctx, uri) => {
            seen.push({ ...variables, uri });
            return `note ${variables.id + 1} in ${variables.folder}`;
          },
        }),
      );
      const client = await createTestClient(server, { protocolVersion });
      const result = await client.readResource("notes://work/41");
      expect(result.contents).toEqual([{ uri: "notes://work/41", text: "note 42 in work" }]);
      expect(seen).toEqual([{ folder: "work", id: 41, uri: "notes://work/41" }]);
    });

    it(`${protocolVersion}: variables that fail the schema answer -32602 with data {uri, issues}, handler not run`, async () => {
      let calls = 0;
      const server = newServer();
      server.resource({
        uriTemplate: "notes://{id}",
        input: { id: z.coerce.number().int() },
        handler: () => {
          calls++;
          return "never";
        },
      });
      const client = await createTestClient(server, { protocolVersion });
      const error = await rpcError(client.readResource("notes://abc"));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('Invalid variables for resource template "notes://{id}"');
      expect(error.message).toContain("- id:");
      const data = error.data as { uri: unknown; issues: { path: string; message: string }[] };
      expect(Object.keys(data).sort()).toEqual(["issues", "uri"]);
      expect(data.uri).toBe("notes://abc");
      expect(data.issues).toHaveLength(1);
      expect(data.issues[0]?.path).toBe("id");
      expect(typeof data.issues[0]?.message).toBe("string");
      expect(calls).toBe(0);
    });
  }

  it("a failing variable is -32602, not resource-not-found (-32002), in the handshake era", async () => {
    const server = newServer();
    server.resource({ uriTemplate: "n://{id}", input: { id: z.string().uuid() }, handler: noop });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await rpcError(client.readResource("n://not-a-uuid"))).code).toBe(-32602);
    expect((await rpcError(client.readResource("other://x"))).code).toBe(-32002);
  });

  it("one issue per failing variable, each with its path", async () => {
    const server = newServer();
    server.resource({
      uriTemplate: "grid://{x}/{y}",
      input: { x: z.coerce.number().min(0), y: z.coerce.number().max(9) },
      handler: noop,
    });
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const error = await rpcError(client.readResource("grid://-1/10"));
    const issues = (error.data as { issues: { path: string }[] }).issues;
    expect(issues.map((issue) => issue.path).sort()).toEqual(["x", "y"]);
    expect(await client.readResource("grid://0/9")).toMatchObject({ contents: [{ uri: "grid://0/9", text: "ok" }] });
  });

  it("a transform runs before the handler", async () => {
    const server = newServer();
    server.resource(
      defineResourceTemplate({
        uriTemplate: "shout://{word}",
        input: z.object({ word: z.string().transform((word) => word.toUpperCase()) }),
        handler: ({ word }) => word,
      }),
    );
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.readResource("shout://hey")).contents).toEqual([{ uri: "shout://hey", text: "HEY" }]);
  });

  it("an absent optional query variable stays absent; a present one is coerced", async () => {
    const seen: unknown[] = [];
    const server = newServer();
    server.resource(
      defineResourceTemplate({
        uriTemplate: "search://{index}{?limit}",
        input: { index: z.string(), limit: z.coerce.number().optional() },
        handler: (variables) => {
          seen.push({ ...variables });
          return "found";
        },
      }),
    );
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    await client.readResource("search://books");
    await client.readResource("search://books?limit=5");
    expect(seen).toEqual([{ index: "books" }, { index: "books", limit: 5 }]);
  });

  it("an absent required query variable is -32602 naming it", async () => {
    const server = newServer();
    server.resource({
      uriTemplate: "search://{index}{?q}",
      input: { index: z.string(), q: z.string() },
      handler: noop,
    });
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const error = await rpcError(client.readResource("search://books"));
    expect(error.code).toBe(-32602);
    expect((error.data as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual(["q"]);
  });

  it("exploded path segments arrive as an array the schema checks", async () => {
    const server = newServer();
    server.resource(
      defineResourceTemplate({
        uriTemplate: "files://root{/path*}",
        input: { path: z.array(z.string()).min(1) },
        handler: ({ path }) => path.join("|"),
      }),
    );
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.readResource("files://root/a/b/c")).contents).toEqual([
      { uri: "files://root/a/b/c", text: "a|b|c" },
    ]);
    expect((await rpcError(client.readResource("files://root"))).code).toBe(-32602);
  });

  it("an async refinement is awaited: a pass reads, a failure is -32602", async () => {
    const known = new Set(["1", "2"]);
    const server = newServer();
    server.resource({
      uriTemplate: "n://{id}",
      input: { id: z.string().refine(async (id) => known.has(id), "unknown id") },
      handler: (variables) => `note ${variables.id}`,
    });
    for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
      const client = await createTestClient(server, { protocolVersion });
      expect((await client.readResource("n://2")).contents).toEqual([{ uri: "n://2", text: "note 2" }]);
      const error = await rpcError(client.readResource("n://3"));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ uri: "n://3", issues: [{ path: "id", message: "unknown id" }] });
    }
  });

  it("without input the handler still gets the raw string variables", async () => {
    const seen: unknown[] = [];
    const server = newServer();
    server.resource({
      uriTemplate: "n://{id}",
      handler: (variables) => {
        seen.push({ ...variables });
        return "raw";
      },
    });
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    await client.readResource("n://007");
    expect(seen).toEqual([{ id: "007" }]);
  });
});
