import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { bookshelfApi } from "./api.js";

// The built server, driven by the official client in both eras: over stdio with the API it starts itself, and over
// HTTP against an API started here (BOOKSHELF_URL), whose own record tells what reached it.
const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const TOOLS = ["addBook", "getBook", "listBooks", "removeBook"];

type Mode = "legacy" | { pin: "2026-07-28" };

async function exercise(client: Client): Promise<void> {
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
  const added = await client.callTool({
    name: "addBook",
    arguments: { body: { title: "Dune", author: "Frank Herbert", tags: ["fiction", "sf"] } },
  });
  expect(added.isError).toBeFalsy();
  expect(added.structuredContent).toEqual({ id: 3, title: "Dune", author: "Frank Herbert", tags: ["fiction", "sf"] });
  const fiction = await client.callTool({ name: "listBooks", arguments: { tag: ["fiction"], limit: 5 } });
  expect((fiction.structuredContent as { result: { title: string }[] }).result.map((book) => book.title)).toEqual([
    "The Left Hand of Darkness",
    "Dune",
  ]);
  expect(await client.callTool({ name: "removeBook", arguments: { id: 3 } })).toMatchObject({ isError: false });
  const gone = await client.callTool({ name: "getBook", arguments: { id: 3 } });
  expect(gone).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/answered 404 Not Found/) }] });
  // Bad input is the model's to read: a path traversal stays one segment, a wrong type never leaves the server.
  expect((await client.callTool({ name: "getBook", arguments: { id: "../openapi.json" } })).isError).toBe(true);
}

describe.each([
  ["handshake era", "legacy"],
  ["stateless era", { pin: "2026-07-28" }],
] as const)("bookshelf with the official client (%s)", (_era, mode: Mode) => {
  it("over stdio, with the API it starts itself", async () => {
    const client = new Client({ name: "bookshelf-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    const inherited = Object.entries(process.env).filter(([name]) => name !== "BOOKSHELF_URL");
    const env: Record<string, string> = { ...Object.fromEntries(inherited), BOOKSHELF_API_KEY: "test-key" };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [serverPath], env, stderr: "pipe" }),
    );
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  describe("over HTTP, against a running API", () => {
    let api: FastifyInstance;
    let mcp: ChildProcess | undefined;
    let url: string;
    const keys: unknown[] = [];

    beforeAll(async () => {
      api = await bookshelfApi("http-key");
      // The API's own socket server: every request it is sent, as it came.
      api.server.on("request", (request: { method?: string; headers: Record<string, unknown> }) => {
        if (request.method !== "GET") keys.push(request.headers["x-api-key"]);
      });
      const apiUrl = await api.listen({ port: 0, host: "127.0.0.1" });
      const env = { ...process.env, PORT: "0", BOOKSHELF_URL: apiUrl, BOOKSHELF_API_KEY: "http-key" };
      const started = await spawnHttp([serverPath, "--http"], { env });
      mcp = started.child;
      url = started.url;
    });

    afterAll(async () => {
      if (mcp) await end(mcp);
      await api?.close();
    });

    it("sends the API key with writes only, and never shows it", async () => {
      const client = new Client({ name: "bookshelf-test", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        await exercise(client);
        expect(keys).toEqual(["http-key", "http-key"]);
        const listed = JSON.stringify(await client.listTools());
        expect(listed).not.toContain("http-key");
      } finally {
        await client.close();
      }
    });
  });
});
