import { createServer as createNetServer } from "node:net";
import swagger from "@fastify/swagger";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer } from "./tools.js";

// A real HTTP API whose OpenAPI document Fastify's swagger plugin writes from its routes, called through a Toolsmith
// server by the official client over HTTP, in both eras. No fetch is mocked: each call crosses two sockets.

const PET = {
  type: "object",
  properties: { id: { type: "integer" }, name: { type: "string" }, tag: { type: "string" } },
  required: ["id", "name"],
};
const MESSAGE = { type: "object", properties: { message: { type: "string" } } };

let api: FastifyInstance;
let apiUrl: string;
let mcp: HttpServer;
let closedPort: number;
// The requests the API saw: its own record, to tell what was forwarded.
const seen: { url: string; authorization: string | undefined; cookie: string | undefined }[] = [];

async function buildApi(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(swagger, { openapi: { openapi: "3.1.0", info: { title: "pets", version: "1.2.3" } } });
  const pets = new Map<number, { id: number; name: string; tag?: string }>([[1, { id: 1, name: "Rex", tag: "dog" }]]);
  app.addHook("onRequest", async (request) => {
    seen.push({ url: request.url, authorization: request.headers.authorization, cookie: request.headers.cookie });
  });
  app.get(
    "/pets/:id",
    {
      schema: {
        operationId: "getPet",
        summary: "One pet by id",
        params: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        response: { 200: PET, 404: MESSAGE },
      },
    },
    async (request, reply) => {
      const pet = pets.get((request.params as { id: number }).id);
      return pet ?? reply.code(404).send({ message: "no such pet" });
    },
  );
  app.get(
    "/pets",
    {
      schema: {
        operationId: "listPets",
        tags: ["pets"],
        querystring: { type: "object", properties: { tag: { type: "string" }, limit: { type: "integer" } } },
        response: { 200: { type: "array", items: PET } },
      },
    },
    async (request) => {
      const { tag, limit } = request.query as { tag?: string; limit?: number };
      return [...pets.values()].filter((pet) => tag === undefined || pet.tag === tag).slice(0, limit ?? 100);
    },
  );
  app.post(
    "/pets",
    {
      schema: {
        operationId: "createPet",
        tags: ["pets"],
        body: { type: "object", properties: { name: { type: "string" }, tag: { type: "string" } }, required: ["name"] },
        response: { 201: PET },
      },
    },
    async (request, reply) => {
      const body = request.body as { name: string; tag?: string };
      const pet = { id: pets.size + 1, ...body };
      pets.set(pet.id, pet);
      return reply.code(201).send(pet);
    },
  );
  app.get(
    "/files/:name",
    { schema: { operationId: "getFile", params: { type: "object", properties: { name: { type: "string" } } } } },
    async (request) => ({ name: (request.params as { name: string }).name }),
  );
  app.get("/big", { schema: { operationId: "big" } }, async (_request, reply) =>
    reply.type("text/plain").send("y".repeat(200_000)),
  );
  // Fastify types a reply's code by the declared responses; the undeclared 500 is the point here.
  app.get("/crash", { schema: { operationId: "crash", response: { 200: MESSAGE } } }, async (_request, reply) =>
    reply
      .code(500 as 200)
      .type("text/plain")
      .send("x".repeat(10_000)),
  );
  await app.ready();
  return app;
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  api = await buildApi();
  apiUrl = await api.listen({ port: 0, host: "127.0.0.1" });
  closedPort = await freePort();
  const document = api.swagger();
  const pets = await openApiServer({ document, baseUrl: apiUrl, errorBodyChars: 100, maxResponseBytes: 100_000 });
  const forwarding = await openApiServer({
    document: JSON.stringify(document),
    baseUrl: apiUrl,
    paths: ["/pets/*"],
    headers: () => ({ authorization: "Bearer configured" }),
    overrides: { getPet: { name: "pet", description: "Fetch a pet" } },
  });
  const down = await openApiServer({
    document,
    baseUrl: `http://127.0.0.1:${closedPort}`,
    methods: ["get"],
    tags: ["pets"],
  });
  const app = createServer({ name: "gateway", version: "1.0.0" })
    .mount("pets", pets)
    .mount("auth", forwarding)
    .mount("down", down);
  mcp = await listen(app, { port: 0, log: null });
});

afterAll(async () => {
  await mcp?.close();
  await api?.close();
});

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as const)("an API Fastify documents, through the official client over HTTP, %s", (_era, mode) => {
  async function connect(): Promise<Client> {
    const client = new Client({ name: "openapi-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    const requestInit = { headers: { authorization: "Bearer client-secret", cookie: "session=client" } };
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit }));
    return client;
  }

  it("lists one tool per operation, each filter and override applied", async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        "auth.pet",
        "down.listPets",
        "pets.big",
        "pets.crash",
        "pets.createPet",
        "pets.getFile",
        "pets.getPet",
        "pets.listPets",
      ]);
      const get = tools.find((tool) => tool.name === "pets.getPet");
      expect(get?.description).toBe("One pet by id");
      expect(get?.inputSchema).toMatchObject({
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
      });
      expect(get?.outputSchema).toMatchObject({ type: "object", required: ["id", "name"] });
      const list = tools.find((tool) => tool.name === "pets.listPets");
      expect(list?.outputSchema).toMatchObject({ type: "object", properties: { result: { type: "array" } } });
      expect(tools.find((tool) => tool.name === "auth.pet")?.description).toBe("Fetch a pet");
    } finally {
      await client.close();
    }
  });

  it("calls with a path parameter, a query and a JSON body", async () => {
    const client = await connect();
    try {
      const one = await client.callTool({ name: "pets.getPet", arguments: { id: 1 } });
      expect(one.isError).toBeFalsy();
      expect(one.structuredContent).toEqual({ id: 1, name: "Rex", tag: "dog" });
      // The API's pets outlive each era's run: a tag of each run's own.
      const tag = mode === "legacy" ? "cat-handshake" : "cat-stateless";
      const made = await client.callTool({ name: "pets.createPet", arguments: { body: { name: "Tom", tag } } });
      expect(made.structuredContent).toMatchObject({ name: "Tom", tag });
      const cats = await client.callTool({ name: "pets.listPets", arguments: { tag, limit: 5 } });
      expect(cats.structuredContent).toEqual({ result: [expect.objectContaining({ name: "Tom", tag })] });
      expect(seen.at(-1)?.url).toBe(`/pets?tag=${tag}&limit=5`);
    } finally {
      await client.close();
    }
  });

  it("tells an error status and a bounded slice of its body as an isError result", async () => {
    const client = await connect();
    try {
      const missing = await client.callTool({ name: "pets.getPet", arguments: { id: 999 } });
      expect(missing.isError).toBe(true);
      expect(missing.content).toEqual([
        { type: "text", text: `GET ${apiUrl}/pets/999 answered 404 Not Found:\n{"message":"no such pet"}` },
      ]);
      const crash = await client.callTool({ name: "pets.crash", arguments: {} });
      expect(crash.isError).toBe(true);
      const text = (crash.content as { text: string }[])[0]?.text ?? "";
      expect(text).toContain("answered 500 Internal Server Error:\n");
      expect(text).toContain("… (10000 characters in all)");
      expect(text.length).toBeLessThan(300);
      const big = await client.callTool({ name: "pets.big", arguments: {} });
      expect(big).toMatchObject({
        isError: true,
        content: [{ text: `GET ${apiUrl}/big answered 200 with a body over 100000 bytes, which was not read` }],
      });
    } finally {
      await client.close();
    }
  });

  it("forwards the caller's credentials only as configured", async () => {
    const client = await connect();
    try {
      await client.callTool({ name: "pets.getPet", arguments: { id: 1 } });
      expect(seen.at(-1)).toEqual({ url: "/pets/1", authorization: undefined, cookie: undefined });
      await client.callTool({ name: "auth.pet", arguments: { id: 1 } });
      expect(seen.at(-1)).toEqual({ url: "/pets/1", authorization: "Bearer configured", cookie: undefined });
    } finally {
      await client.close();
    }
  });

  it("refuses a dot segment or an empty path parameter, and tells an API that is down", async () => {
    const client = await connect();
    try {
      // Fastify's coercion aside, the argument is checked as the document says: an integer.
      const bad = await client.callTool({ name: "pets.getPet", arguments: { id: ".." } });
      expect(bad.isError).toBe(true);
      const name = await client.callTool({ name: "pets.getFile", arguments: { name: "a/b c" } });
      expect(name.content).toEqual([{ type: "text", text: '{"name":"a/b c"}' }]);
      // An empty one would make /files/{name} the request /files/, another path.
      for (const dots of ["..", ".", ""]) {
        const up = await client.callTool({ name: "pets.getFile", arguments: { name: dots } });
        expect(up).toMatchObject({ isError: true, content: [{ text: `path parameter "name" may not be "${dots}"` }] });
      }
      // Percent signs are encoded too: "%2E%2e" reaches the API as itself, never as "..".
      const escaped = await client.callTool({ name: "pets.getFile", arguments: { name: "%2E%2e" } });
      expect(escaped.content).toEqual([{ type: "text", text: '{"name":"%2E%2e"}' }]);
      const down = await client.callTool({ name: "down.listPets", arguments: {} });
      expect(down.isError).toBe(true);
      expect((down.content as { text: string }[])[0]?.text).toMatch(
        new RegExp(`^GET http://127\\.0\\.0\\.1:${closedPort}/pets failed: .*ECONNREFUSED`),
      );
    } finally {
      await client.close();
    }
  });
});
