import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

// The remote in remote.test.ts: a server of the official SDK v2 on its stdio, as its docs write one.
serveStdio(() => {
  const server = new McpServer(
    { name: "sdk-remote", version: "1.0.0" },
    { capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} } },
  );
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "point",
    {
      description: "A point",
      inputSchema: z.object({ x: z.number() }),
      outputSchema: z.object({ x: z.number(), y: z.number() }),
    },
    async ({ x }) => ({ content: [{ type: "text", text: `${x},0` }], structuredContent: { x, y: 0 } }),
  );
  server.registerTool("fail", { description: "Always fails", inputSchema: z.object({}) }, async () => ({
    content: [{ type: "text", text: "it broke" }],
    isError: true,
  }));
  server.registerTool(
    "big",
    { description: "A long text", inputSchema: z.object({ bytes: z.number() }) },
    async ({ bytes }) => ({ content: [{ type: "text", text: "x".repeat(bytes) }] }),
  );
  server.registerPrompt(
    "greet",
    { description: "Greets someone", argsSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}` } }] }),
  );
  server.registerResource("about", "info://about", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "about the remote" }],
  }));
  server.registerResource(
    "item",
    new ResourceTemplate("item://{id}", {
      list: undefined,
      complete: { id: (value) => ["alpha", "beta"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${id}` }] }),
  );
  return server;
});
