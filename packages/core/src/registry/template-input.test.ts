import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createServer, defineResourceTemplate, ErrorCode, type Server } from "../index.js";
import type { UriVariables } from "../schema/uri-template.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";

const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;

function newServer(): Server {
  return createServer({ name: "template-input-test", version: "1.0.0" });
}

const noop = () => "ok";

// What a server with templates advertises (logging always).
const RESOURCES = { logging: {}, resources: { subscribe: true, listChanged: true } };

describe("registration: the input's fields must be exactly the template's variables", () => {
  it("accepts a z.object and a raw shape whose fields are the variables", () => {
    const server = newServer();
    server.resource({
      uriTemplate: "notes://{folder}/{id}",
      input: z.object({ folder: z.string(), id: z.coerce.number() }),
      handler: noop,
    });
    server.resource({ uriTemplate: "tags://{tag}", input: { tag: z.string() }, handler: noop });
    expect(server.capabilities()).toEqual(RESOURCES);
  });

  it("counts query, path-segment and reserved variables", () => {
    expect(() =>
      newServer().resource({
        uriTemplate: "files://{+root}{/path*}{?rev,limit}",
        input: {
          root: z.string(),
          path: z.array(z.string()),
          rev: z.string().optional(),
          limit: z.coerce.number().optional(),
        },
        handler: noop,
      }),
    ).not.toThrow();
  });

  it("a variable with no field names the variable and the fields to use", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "notes://{folder}/{id}", input: { folder: z.string() }, handler: noop }),
    );
    expect(error.message).toContain('Resource template "notes://{folder}/{id}" input does not match its variables');
    expect(error.message).toContain("{id} has no field in the input schema");
    expect(error.message).not.toContain("{folder} has no field");
    expect(error.message).toContain(`make the schema's fields exactly "folder", "id"`);
  });

  it("a field that is not a variable is named", () => {
    const error = definitionError(() =>
      newServer().resource({
        uriTemplate: "notes://{id}",
        input: z.object({ id: z.string(), extra: z.string().optional() }),
        handler: noop,
      }),
    );
    expect(error.message).toContain('field "extra" is not a template variable');
    expect(error.message).not.toContain('field "id"');
    expect(error.message).toContain(`make the schema's fields exactly "id"`);
  });

  it("names every problem at once", () => {
    const error = definitionError(() =>
      newServer().resource({
        uriTemplate: "users://{org}/{user}",
        input: { org: z.string(), name: z.string(), team: z.string() },
        handler: noop,
      }),
    );
    expect(error.message).toContain("{user} has no field in the input schema");
    expect(error.message).toContain('field "name" is not a template variable');
    expect(error.message).toContain('field "team" is not a template variable');
    expect(error.message).toContain(`make the schema's fields exactly "org", "user"`);
  });

  it("a query variable left out of the schema is still a mismatch", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "search://{index}{?q}", input: { index: z.string() }, handler: noop }),
    );
    expect(error.message).toContain("{q} has no field in the input schema");
  });

  it("a schema that is not an object says so", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "notes://{id}", input: z.string(), handler: noop }),
    );
    expect(error.message).toContain("the input schema must be an object of the variables");
    expect(error.message).toContain("{id} has no field in the input schema");
  });

  it("a rejected template is not registered: the server stays empty and the template can be added again", async () => {
    const server = newServer();
    definitionError(() => server.resource({ uriTemplate: "notes://{id}", input: { nope: z.string() }, handler: noop }));
    expect(server.capabilities()).toEqual({ logging: {} });
    server.resource({ uriTemplate: "notes://{id}", input: { id: z.string() }, handler: (vars) => `note ${vars.id}` });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(["notes://{id}"]);
  });
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

describe("defineResourceTemplate types the handler's variables from input", () => {
  it("a raw shape, a z.object, and no input", () => {
    const fromShape = defineResourceTemplate({
      uriTemplate: "n://{id}{?tag}",
      input: { id: z.coerce.number(), tag: z.string().optional() },
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<{ id: number; tag?: string | undefined }>();
        return variables.id;
      },
    });
    const fromObject = defineResourceTemplate({
      uriTemplate: "u://{name}",
      input: z.object({ name: z.string().transform((name) => name.length) }),
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<{ name: number }>();
        return variables.name;
      },
    });
    const untyped = defineResourceTemplate({
      uriTemplate: "r://{id}",
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<UriVariables>();
        // @ts-expect-error: the raw variables are strings or arrays, not numbers
        const id: number = variables.id;
        return id;
      },
    });
    // Type-level assertions above are checked by tsc; at runtime the definitions are returned as given.
    expect(fromShape.uriTemplate).toBe("n://{id}{?tag}");
    expect(fromObject.uriTemplate).toBe("u://{name}");
    expect(untyped.uriTemplate).toBe("r://{id}");
    const server = newServer();
    server.resource(fromShape);
    server.resource(fromObject);
    server.resource(untyped);
    expect(server.capabilities()).toEqual(RESOURCES);
  });
});
