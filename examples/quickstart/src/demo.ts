import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

// The official client drives the quickstart server over stdio in both protocol eras; every line is printed.
const serverPath = fileURLToPath(new URL("./main.js", import.meta.url));
const color = process.stdout.isTTY
  ? (code: number, text: string) => `\x1b[${code}m${text}\x1b[0m`
  : (_: number, text: string) => text;

// A subclass probes on the one process it spawned, so the whole conversation passes through this tap.
class TappedTransport extends StdioClientTransport {}

function tap(transport: TappedTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    process.stdout.write(`${color(36, "→")} ${JSON.stringify(message)}\n`);
    return send(message);
  };
  let handler: TappedTransport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    get: () =>
      handler &&
      ((message: Parameters<NonNullable<TappedTransport["onmessage"]>>[0], extra?: unknown) => {
        process.stdout.write(`${color(33, "←")} ${JSON.stringify(message)}\n`);
        return (handler as (m: unknown, e?: unknown) => void)(message, extra);
      }),
    set: (value) => {
      handler = value;
    },
  });
}

async function session(title: string, mode: "legacy" | { pin: "2026-07-28" }): Promise<void> {
  process.stdout.write(`\n${color(1, `== ${title} ==`)}\n`);
  const transport = new TappedTransport({ command: process.execPath, args: [serverPath] });
  tap(transport);
  const client = new Client({ name: "toolsmith-demo", version: "0.1.0" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  await client.callTool({ name: "add", arguments: { a: "two" } });
  await client.callTool({ name: "add_note", arguments: { title: "Demo", body: "written by the demo" } });
  await client.readResource({ uri: "notes://3" });
  await client.getPrompt({ name: "summarise", arguments: { topic: "errands" } });
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (error) {
    process.stdout.write(`   (the client threw: ${(error as Error).message})\n`);
  }
  await client.close();
}

await session("handshake era (2025-11-25): initialize, then requests", "legacy");
await session("stateless era (2026-07-28): server/discover, _meta on every request", { pin: "2026-07-28" });
