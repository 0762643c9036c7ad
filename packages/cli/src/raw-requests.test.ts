import { Client, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { type ProgressParams, tapTransport } from "./raw-requests.js";

// A server end that answers at once and, to tools/call, writes its progress and its answer in one go: what the CLI
// reads in one chunk when it is slower than the server (a busy machine).
function oneChunkServer(): Transport {
  const transport: Transport = {
    async start() {},
    async close() {},
    async send(message: JSONRPCMessage) {
      const m = message as { id?: number; method?: string; params?: { _meta?: { progressToken?: number } } };
      const reply = (result: Record<string, unknown>) =>
        transport.onmessage?.({ jsonrpc: "2.0", id: m.id as number, result } as JSONRPCMessage);
      if (m.method === "initialize") {
        reply({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } });
      } else if (m.method === "tools/call") {
        const progressToken = m.params?._meta?.progressToken as number;
        transport.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken, progress: 0, total: 2, message: "importing" },
        } as JSONRPCMessage);
        reply({ content: [{ type: "text", text: "done" }] });
      }
    },
  };
  return transport;
}

async function connected(): Promise<{ client: Client; tapped: ReturnType<typeof tapTransport>; errors: Error[] }> {
  const tapped = tapTransport(oneChunkServer(), { timeoutMs: 5000 });
  const client = new Client({ name: "t", version: "1" }, { versionNegotiation: { mode: "legacy" } });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(tapped.transport);
  return { client, tapped, errors };
}

describe("the progress of the official client's own requests", () => {
  it("is heard when it comes in one chunk with the answer, which the client's own onprogress misses", async () => {
    const { client, tapped, errors } = await connected();
    const heard: ProgressParams[] = [];
    const byClient: unknown[] = [];
    tapped.raw.hearClientProgress((progress) => heard.push(progress));
    await client.callTool({ name: "import", arguments: {} }, { onprogress: (p) => byClient.push(p) });
    tapped.raw.hearClientProgress(undefined);
    expect(heard).toEqual([{ progressToken: expect.any(Number), progress: 0, total: 2, message: "importing" }]);
    expect(byClient).toEqual([]);
    expect(errors).toEqual([]);
    await client.close();
  });

  it("reaches the client as before when no one hears it here (the client then drops what came with the answer)", async () => {
    const { client, errors } = await connected();
    const byClient: unknown[] = [];
    await client.callTool({ name: "import", arguments: {} }, { onprogress: (p) => byClient.push(p) });
    expect(byClient).toEqual([]);
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining("Received a progress notification for an unknown token"),
    ]);
    await client.close();
  });
});
