import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenApiError } from "./errors.js";
import { callerToken } from "./security.js";
import { openApiServer, openApiTools } from "./tools.js";

// How arguments travel: parameter styles, form and multipart bodies, security schemes and servers, each against a
// real Fastify API that reads what it was sent and answers it back. Its document is the one Fastify's swagger plugin
// writes; a `style` per parameter and an `encoding` it cannot express are set on that document here, by name.

const ECHO = { type: "object", additionalProperties: true };
// A route whose values arrive as the document's style writes them (strings, `a[b]` keys, a file as a Buffer), which
// Fastify's own validation of the schema it documents would refuse: the route reads them raw, and answers them back.
const raw = () => () => true;

let api: FastifyInstance;
let apiUrl: string;
let document: Record<string, unknown>;
// What the secured routes read: the API's own record, as a result that says a credential back is blanked out.
const seen: Record<string, unknown>[] = [];

// What a route read, as Fastify parsed it, with the raw URL and the headers that carry parameters and credentials.
function echo(request: FastifyRequest): Record<string, unknown> {
  const { headers } = request;
  return {
    url: request.url,
    params: request.params,
    query: request.query,
    body: request.body,
    headers: { list: headers["x-list"], object: headers["x-object"], key: headers["x-api-key"] },
    authorization: headers.authorization,
    cookie: headers.cookie,
    type: headers["content-type"]?.split(";")[0],
  };
}

async function buildApi(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "echo", version: "1.0.0" },
      components: {
        securitySchemes: {
          keyHeader: { type: "apiKey", in: "header", name: "X-Api-Key" },
          keyQuery: { type: "apiKey", in: "query", name: "api_key" },
          keyCookie: { type: "apiKey", in: "cookie", name: "key" },
          bearer: { type: "http", scheme: "bearer" },
          basic: { type: "http", scheme: "basic" },
          oauth: {
            type: "oauth2",
            flows: { clientCredentials: { tokenUrl: "https://auth.example/token", scopes: {} } },
          },
        },
      },
    },
  });
  await app.register(formbody);
  await app.register(multipart, { attachFieldsToBody: "keyValues", limits: { fileSize: 1024 * 1024 } });
  const array = { type: "array", items: { type: "string" } };
  const point = { type: "object", properties: { x: { type: "integer" }, y: { type: "integer" } } };
  app.get(
    "/query",
    {
      schema: {
        operationId: "query",
        querystring: {
          type: "object",
          properties: { form: array, csv: array, spaced: array, piped: array, point, flat: point, filter: ECHO },
        },
        response: { 200: ECHO },
      },
      validatorCompiler: raw,
    },
    async (request) => echo(request),
  );
  app.get(
    "/path/:simple/:label/:matrix",
    {
      schema: {
        operationId: "path",
        params: {
          type: "object",
          properties: { simple: { type: "string" }, label: { type: "string" }, matrix: { type: "string" } },
        },
        response: { 200: ECHO },
      },
      validatorCompiler: raw,
    },
    async (request) => echo(request),
  );
  app.get(
    "/headers",
    {
      schema: {
        operationId: "headers",
        headers: { type: "object", properties: { "x-list": array, "x-object": point } },
        cookies: { type: "object", properties: { session: { type: "string" }, ids: array } },
        response: { 200: ECHO },
      },
      validatorCompiler: raw,
    },
    async (request) => echo(request),
  );
  app.post(
    "/form",
    {
      schema: {
        operationId: "form",
        consumes: ["application/x-www-form-urlencoded"],
        body: {
          type: "object",
          properties: { name: { type: "string" }, count: { type: "integer" }, tags: array, meta: ECHO },
          required: ["name"],
        },
        response: { 200: ECHO },
      },
      validatorCompiler: raw,
    },
    async (request) => echo(request),
  );
  app.post(
    "/upload",
    {
      schema: {
        operationId: "upload",
        consumes: ["multipart/form-data"],
        body: {
          type: "object",
          properties: {
            title: { type: "string" },
            labels: array,
            meta: ECHO,
            file: { type: "string", format: "binary" },
          },
          required: ["title"],
        },
        response: { 200: ECHO },
      },
      validatorCompiler: raw,
    },
    async (request) => {
      const body = request.body as Record<string, unknown>;
      const file = body.file;
      return { ...echo(request), body: { ...body, file: Buffer.isBuffer(file) ? [...file] : file } };
    },
  );
  for (const [name, security] of [
    ["keyHeader", [{ keyHeader: [] }]],
    ["keyQuery", [{ keyQuery: [] }]],
    ["keyCookie", [{ keyCookie: [] }]],
    ["bearer", [{ bearer: [] }]],
    ["basic", [{ basic: [] }]],
    ["oauth", [{ oauth: [] }]],
    ["either", [{ keyHeader: [], keyQuery: [] }, { bearer: [] }]],
    ["optional", [{}, { bearer: [] }]],
  ] as const) {
    const schema = { operationId: `secure_${name}`, security, response: { 200: ECHO } };
    app.get(`/secure/${name}`, { schema }, async (request) => {
      seen.push(echo(request));
      return echo(request);
    });
  }
  for (const version of ["v1", "v2"]) app.get(`/${version}/hello`, async () => ({ version }));
  // An API that says back the credential it was sent, in an error: the model must never read it.
  app.get("/tattle", { schema: { operationId: "tattle", security: [{ bearer: [] }] } }, async (request, reply) =>
    reply.code(401).send(`refused ${request.headers.authorization}`),
  );
  await app.ready();
  return app;
}

type Parameter = { name: string; in: string; [key: string]: unknown };

// The generated document's operation at `path`, to set what the plugin cannot say.
function operation(path: string, method = "get"): Record<string, unknown> {
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  return paths[path]?.[method] as Record<string, unknown>;
}

function style(path: string, name: string, patch: Record<string, unknown>): void {
  const parameter = (operation(path).parameters as Parameter[]).find((each) => each.name === name);
  if (!parameter) throw new Error(`the document has no parameter ${name} at ${path}`);
  Object.assign(parameter, patch);
}

beforeAll(async () => {
  api = await buildApi();
  apiUrl = await api.listen({ port: 0, host: "127.0.0.1" });
  document = structuredClone(api.swagger()) as unknown as Record<string, unknown>;
  style("/query", "csv", { explode: false });
  style("/query", "spaced", { style: "spaceDelimited", explode: false });
  style("/query", "piped", { style: "pipeDelimited", explode: false });
  style("/query", "flat", { explode: false });
  style("/query", "filter", { style: "deepObject", explode: true });
  style("/path/{simple}/{label}/{matrix}", "label", { style: "label" });
  style("/path/{simple}/{label}/{matrix}", "matrix", { style: "matrix", explode: true });
  style("/headers", "x-object", { explode: true });
  style("/headers", "ids", { explode: false });
  const form = operation("/form", "post").requestBody as { content: Record<string, Record<string, unknown>> };
  (form.content["application/x-www-form-urlencoded"] as Record<string, unknown>).encoding = {
    meta: { contentType: "application/json" },
  };
});

afterAll(async () => {
  await api?.close();
});

async function client(options: Record<string, unknown> = {}): Promise<TestClient> {
  return createTestClient(await openApiServer({ document, baseUrl: apiUrl, ...options }));
}

function text(result: { content?: unknown }): string {
  return (result.content as { text: string }[])[0]?.text ?? "";
}

describe("parameters in each style, against Fastify", () => {
  it("writes query parameters as form, spaceDelimited, pipeDelimited and deepObject say", async () => {
    const mcp = await client();
    try {
      const result = await mcp.callTool("query", {
        form: ["a b", "c,d"],
        csv: ["a", "b"],
        spaced: ["x", "y"],
        piped: ["1", "2"],
        point: { x: 1, y: 2 },
        flat: { x: 3, y: 4 },
        filter: { color: "red", size: { min: 1 }, tags: ["p", "q"] },
      });
      expect(result.isError).toBeFalsy();
      const read = result.structuredContent as { url: string; query: Record<string, unknown> };
      expect(read.url).toBe(
        "/query?form=a%20b&form=c%2Cd&csv=a,b&spaced=x%20y&piped=1|2&x=1&y=2&flat=x,3,y,4" +
          "&filter%5Bcolor%5D=red&filter%5Bsize%5D%5Bmin%5D=1&filter%5Btags%5D=p&filter%5Btags%5D=q",
      );
      expect(read.query).toMatchObject({
        form: ["a b", "c,d"],
        csv: "a,b",
        spaced: "x y",
        piped: "1|2",
        "filter[color]": "red",
        "filter[size][min]": "1",
        "filter[tags]": ["p", "q"],
      });
      const deep = { filter: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } };
      expect(await mcp.callTool("query", deep)).toMatchObject({
        isError: true,
        content: [{ text: 'query parameter "filter" nests deeper than 8 levels' }],
      });
      expect(await mcp.callTool("query", { csv: ["x".repeat(40_000)] })).toMatchObject({
        isError: true,
        content: [{ text: "the query would be 40004 characters, over 32768" }],
      });
    } finally {
      mcp.close();
    }
  });

  it("writes path parameters as simple, label and matrix say, encoding what would leave the segment", async () => {
    const mcp = await client();
    try {
      const result = await mcp.callTool("path", { simple: "../admin?x#y", label: "v1", matrix: "3" });
      const read = result.structuredContent as { url: string; params: Record<string, string> };
      expect(read.url).toBe("/path/..%2Fadmin%3Fx%23y/.v1/;matrix=3");
      expect(read.params).toEqual({ simple: "../admin?x#y", label: ".v1", matrix: ";matrix=3" });
      // The input schema is the document's (strings): the styles of arrays and objects are shown through the tool.
      const { document: loaded } = await openApiTools({ document, baseUrl: apiUrl });
      expect(loaded.operations.find((each) => each.id === "path")?.placements.get("matrix")).toEqual({
        in: "path",
        name: "matrix",
        style: "matrix",
        explode: true,
      });
      for (const [label, said] of [
        [".", 'path parameter "label" may not be ".."'],
        ["", 'path parameter "label" may not be "."'],
      ]) {
        expect(await mcp.callTool("path", { simple: "a", label, matrix: "b" })).toMatchObject({
          isError: true,
          content: [{ text: said }],
        });
      }
    } finally {
      mcp.close();
    }
  });

  it("writes header and cookie parameters, refusing a line break in any of their values", async () => {
    const mcp = await client();
    try {
      const result = await mcp.callTool("headers", {
        "x-list": ["a", "b"],
        "x-object": { x: 1, y: 2 },
        session: "s p;c",
        ids: ["1", "2"],
      });
      expect(result.structuredContent).toMatchObject({
        headers: { list: "a,b", object: "x=1,y=2" },
        cookie: "session=s%20p%3Bc; ids=1,2",
      });
      for (const hostile of [["a", "b\r\nX-Evil: 1"], ["a\rb"], ["\n"], ["nul\0"]]) {
        expect(await mcp.callTool("headers", { "x-list": hostile })).toMatchObject({
          isError: true,
          content: [
            { text: 'header parameter "x-list" cannot be sent: a header holds no line break or character past U+00FF' },
          ],
        });
      }
    } finally {
      mcp.close();
    }
  });
});

describe("form and multipart bodies, against Fastify", () => {
  it("sends a form, its arrays repeated and a field its encoding says is JSON as JSON", async () => {
    const mcp = await client();
    try {
      const listed = (await mcp.listTools()).find((tool) => tool.name === "form");
      expect(listed?.inputSchema).toMatchObject({ properties: { body: { type: "object" } }, required: ["body"] });
      const body = { name: "Tom & Jerry=1", count: 3, tags: ["a", "b c"], meta: { deep: [1, { two: 2 }] } };
      const result = await mcp.callTool("form", { body });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        type: "application/x-www-form-urlencoded",
        body: { name: "Tom & Jerry=1", count: "3", tags: ["a", "b c"], meta: JSON.stringify(body.meta) },
      });
      expect(await mcp.callTool("form", { body: { name: "x".repeat(200_000) } })).toMatchObject({
        structuredContent: { body: { name: "x".repeat(200_000) } },
      });
    } finally {
      mcp.close();
    }
  });

  it("sends multipart fields as parts and a binary field, given as base64, as a file", async () => {
    const mcp = await client();
    try {
      const listed = (await mcp.listTools()).find((tool) => tool.name === "upload");
      expect(listed?.inputSchema).toMatchObject({
        properties: { body: { properties: { file: { type: "string", contentEncoding: "base64" } } } },
      });
      const bytes = [0, 1, 2, 250, 255];
      const result = await mcp.callTool("upload", {
        body: { title: "report", labels: ["x", "y"], meta: { a: 1 }, file: Buffer.from(bytes).toString("base64") },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        type: "multipart/form-data",
        body: { title: "report", labels: ["x", "y"], meta: '{"a":1}', file: bytes },
      });
      expect(await mcp.callTool("upload", { body: { title: "t", file: "not base64!" } })).toMatchObject({
        isError: true,
        content: [{ text: 'the body\'s field "file" must be base64' }],
      });
    } finally {
      mcp.close();
    }
  });
});

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as const)("security schemes, through the official client over HTTP, %s", (_era, mode) => {
  let mcp: HttpServer;
  const secrets = { key: "hdr-key-1234", query: "q&key=1234", cookie: "cookie-key-1234", password: "pa:ss-1234" };

  beforeAll(async () => {
    const secured = { document, baseUrl: apiUrl, paths: ["/secure/*", "/tattle"] };
    const configured = await openApiServer({
      ...secured,
      credentials: {
        keyHeader: secrets.key,
        keyQuery: secrets.query,
        keyCookie: secrets.cookie,
        basic: { username: "ann", password: secrets.password },
        bearer: callerToken,
        oauth: callerToken,
      },
    });
    const bearerOnly = await openApiServer({ ...secured, credentials: { bearer: "static-token-1234" } });
    const none = await openApiServer(secured);
    const app = createServer({ name: "gateway", version: "1.0.0" })
      .mount("on", configured)
      .mount("bearer", bearerOnly)
      .mount("none", none);
    mcp = await listen(app, {
      port: 0,
      log: null,
      authenticate: (request) => {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
        return token ? { subject: "caller", scopes: [], token } : undefined;
      },
    });
  });

  afterAll(async () => {
    await mcp?.close();
  });

  async function connect(): Promise<Client> {
    const client = new Client({ name: "openapi-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    const requestInit = { headers: { authorization: "Bearer caller-token-5678" } };
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit }));
    return client;
  }

  it("sends each scheme's credential where it goes, the caller's token only where configured", async () => {
    const client = await connect();
    try {
      const call = async (name: string) => {
        const result = await client.callTool({ name, arguments: {} });
        expect(result.isError).toBeFalsy();
        return { read: seen.at(-1), shown: JSON.stringify(result) };
      };
      let { read, shown } = await call("on.secure_keyHeader");
      expect(read).toMatchObject({ headers: { key: secrets.key }, authorization: undefined, cookie: undefined });
      expect(shown).not.toContain(secrets.key);
      expect(shown).toContain("[redacted]");
      ({ read, shown } = await call("on.secure_keyQuery"));
      expect(read).toMatchObject({ url: "/secure/keyQuery?api_key=q%26key%3D1234", query: { api_key: secrets.query } });
      expect(shown).not.toContain("1234");
      ({ read } = await call("on.secure_keyCookie"));
      expect(read).toMatchObject({ cookie: `key=${secrets.cookie}`, authorization: undefined });
      ({ read } = await call("on.secure_basic"));
      const basic = Buffer.from(`ann:${secrets.password}`).toString("base64");
      expect(read).toMatchObject({ authorization: `Basic ${basic}` });
      for (const name of ["on.secure_bearer", "on.secure_oauth"]) {
        ({ read, shown } = await call(name));
        expect(read).toMatchObject({ authorization: "Bearer caller-token-5678" });
        expect(shown).not.toContain("caller-token-5678");
      }
      // Either both API keys, or a bearer: the first requirement whose every scheme has a credential.
      ({ read } = await call("on.secure_either"));
      expect(read).toMatchObject({ headers: { key: secrets.key }, query: { api_key: secrets.query } });
      expect(read?.authorization).toBeUndefined();
      // Optional ({}), or a bearer: sent when there is one.
      ({ read } = await call("on.secure_optional"));
      expect(read).toMatchObject({ authorization: "Bearer caller-token-5678" });
      ({ read } = await call("bearer.secure_either"));
      expect(read).toMatchObject({ url: "/secure/either", authorization: "Bearer static-token-1234" });
      expect(read?.headers).toEqual({});
      // Nothing configured: nothing of the caller's, nor of any scheme, is sent.
      for (const name of ["none.secure_bearer", "none.secure_keyHeader", "bearer.secure_keyHeader"]) {
        ({ read } = await call(name));
        expect(read).toMatchObject({
          url: `/secure/${name.split("_")[1]}`,
          authorization: undefined,
          cookie: undefined,
        });
        expect(read?.headers).toEqual({});
      }
    } finally {
      await client.close();
    }
  });

  it("sends each caller its own token when two call at once", async () => {
    const connectAs = async (token: string) => {
      const client = new Client({ name: "openapi-test", version: "1.0.0" }, { versionNegotiation: { mode } });
      const requestInit = { headers: { authorization: `Bearer ${token}` } };
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit }));
      return client;
    };
    const [ann, bob] = await Promise.all([connectAs("ann-token-1111"), connectAs("bob-token-2222")]);
    try {
      const before = seen.length;
      const calls = [ann, bob, ann, bob, ann, bob].map(async (client) =>
        JSON.stringify(await client.callTool({ name: "on.secure_bearer", arguments: {} })),
      );
      for (const shown of await Promise.all(calls)) expect(shown).not.toMatch(/ann-token|bob-token/);
      const sent = seen.slice(before).map((read) => read.authorization);
      expect(sent.sort()).toEqual([
        ...Array(3).fill("Bearer ann-token-1111"),
        ...Array(3).fill("Bearer bob-token-2222"),
      ]);
    } finally {
      await Promise.all([ann.close(), bob.close()]);
    }
  });

  it("never says a credential the API says back in its error", async () => {
    const client = await connect();
    try {
      // What headers(ctx) gives as authorization too.
      const headed = await createTestClient(
        await openApiServer({
          document,
          baseUrl: apiUrl,
          paths: ["/tattle"],
          headers: () => ({ authorization: "Bearer hdr-5678" }),
        }),
      );
      try {
        expect(text(await headed.callTool("tattle", {}))).toBe(
          `GET ${apiUrl}/tattle answered 401 Unauthorized:\nrefused [redacted]`,
        );
      } finally {
        headed.close();
      }
      for (const [name, secret] of [
        ["on.tattle", "caller-token-5678"],
        ["bearer.tattle", "static-token-1234"],
      ] as const) {
        const result = await client.callTool({ name, arguments: {} });
        expect(result).toMatchObject({
          isError: true,
          content: [{ text: `GET ${apiUrl}/tattle answered 401 Unauthorized:\nrefused Bearer [redacted]` }],
        });
        expect(JSON.stringify(result)).not.toContain(secret);
      }
    } finally {
      await client.close();
    }
  });
});

describe("credentials configured wrong, or that cannot be sent", () => {
  it("refuses at start a scheme the document lacks or a credential of the wrong shape", async () => {
    await expect(openApiTools({ document, baseUrl: apiUrl, credentials: { nope: "x" } })).rejects.toThrow(
      'credentials name the security scheme "nope", which the document does not declare',
    );
    await expect(openApiTools({ document, baseUrl: apiUrl, credentials: { basic: "x" } })).rejects.toThrow(
      'the credential for the security scheme "basic" must be { username, password }',
    );
    await expect(
      openApiTools({ document, baseUrl: apiUrl, credentials: { bearer: { username: "a", password: "b" } } }),
    ).rejects.toThrow('the credential for the security scheme "bearer" must be a string');
  });

  it("answers a credential that cannot be sent with an error naming its scheme, never its value", async () => {
    const secured = { document, baseUrl: apiUrl, paths: ["/secure/*"] };
    const before = seen.length;
    const hostile = await client({
      ...secured,
      credentials: {
        keyHeader: "SECRET\r\nX-Evil: 1",
        keyCookie: "SECRET; evil=1",
        bearer: () => "SECRET\u0100",
        basic: () => ({ username: "a:b", password: "SECRET" }),
      },
    });
    try {
      for (const [name, scheme] of [
        ["secure_keyHeader", "keyHeader"],
        ["secure_keyCookie", "keyCookie"],
        ["secure_bearer", "bearer"],
        ["secure_basic", "basic"],
      ] as const) {
        const result = await hostile.callTool(name, {});
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(
          new RegExp(`^the credential for the security scheme "${scheme}" cannot be sent: `),
        );
        expect(text(result)).not.toContain("SECRET");
      }
      expect(seen.length).toBe(before);
    } finally {
      hostile.close();
    }
  });
});

describe("servers: variables, a relative URL, an operation's own, and baseUrl over them all", () => {
  // A document of its own: Fastify's plugin writes the routes' full paths, and the servers are the point here.
  function hello(servers: unknown[], operationServers?: unknown[]): Record<string, unknown> {
    const get = {
      operationId: "hello",
      responses: { 200: { description: "ok", content: { "application/json": {} } } },
    };
    return {
      openapi: "3.0.3",
      info: { title: "hello", version: "1" },
      servers,
      paths: { "/hello": { get: operationServers ? { ...get, servers: operationServers } : get } },
    };
  }

  async function version(options: Parameters<typeof openApiServer>[0]): Promise<string> {
    const mcp = await createTestClient(await openApiServer(options));
    try {
      return text(await mcp.callTool("hello", {}));
    } finally {
      mcp.close();
    }
  }

  it("fills in each variable, from serverVariables or its default, within its enum", async () => {
    const port = new URL(apiUrl).port;
    const variables = { port: { default: port }, version: { default: "v1", enum: ["v1", "v2"] } };
    const templated = hello([{ url: "http://127.0.0.1:{port}/{version}", variables }]);
    expect(await version({ document: templated })).toBe('{"version":"v1"}');
    expect(await version({ document: templated, serverVariables: { version: "v2" } })).toBe('{"version":"v2"}');
    await expect(openApiTools({ document: templated, serverVariables: { version: "v3" } })).rejects.toThrow(
      'the server variable "version" is "v3", not one of "v1", "v2"',
    );
    const undeclared = hello([{ url: "http://127.0.0.1:{port}/{other}", variables }]);
    await expect(openApiTools({ document: undeclared })).rejects.toThrow(OpenApiError);
    expect(await version({ document: templated, baseUrl: `${apiUrl}/v2/` })).toBe('{"version":"v2"}');
  });

  it("reads a relative server against the document's URL, and takes an operation's own servers first", async () => {
    const relative = hello([{ url: "/v2" }]);
    expect(await version({ document: relative, documentUrl: `${apiUrl}/docs/openapi.json` })).toBe('{"version":"v2"}');
    expect(await version({ document: hello([{ url: "v1" }]), documentUrl: `${apiUrl}/openapi.yaml` })).toBe(
      '{"version":"v1"}',
    );
    await expect(openApiTools({ document: relative })).rejects.toThrow(
      'no baseUrl: give one, or the documentUrl the server "/v2" is relative to',
    );
    await expect(openApiTools({ document: relative, documentUrl: "file:///etc/openapi.json" })).rejects.toThrow(
      "the baseUrl is a file: URL, not an http(s) one",
    );
    const own = hello([{ url: `${apiUrl}/v1` }], [{ url: `${apiUrl}/v2` }]);
    expect(await version({ document: own })).toBe('{"version":"v2"}');
  });
});
