// bench/registration.mjs's official SDK v2 child: `McpServer.registerTool` with `z.object(shape)` (its docs' form),
// then tools/list through its `InMemoryTransport`, each reply serialised to the line a transport would write.
import { measure } from "./registration-harness.mjs";

await measure({
  async load() {
    const [sdk, { z }] = await Promise.all([import("@modelcontextprotocol/server"), import("zod")]);
    return { ...sdk, z };
  },
  register({ McpServer, z }, specs) {
    const server = new McpServer({ name: "bench-registration", version: "1.0.0" }, { capabilities: { tools: {} } });
    for (const { name, description, shape } of specs) {
      server.registerTool(name, { description, inputSchema: z.object(shape) }, async () => ({
        content: [{ type: "text", text: name }],
      }));
    }
    return server;
  },
  async open({ InMemoryTransport }, server) {
    const [client, end] = InMemoryTransport.createLinkedPair();
    let pending;
    client.onmessage = (message) => {
      const resolve = pending;
      pending = undefined;
      resolve?.(JSON.stringify(message));
    };
    await server.connect(end);
    await client.start();
    return {
      request: (line) =>
        new Promise((resolve) => {
          pending = resolve;
          client.send(JSON.parse(line));
        }),
      notify: (line) => client.send(JSON.parse(line)),
    };
  },
});
