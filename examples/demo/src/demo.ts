import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

// The official MCP client drives each example server over stdio; every message is printed as it crosses.
const color = process.stdout.isTTY
  ? (code: number, text: string) => `\x1b[${code}m${text}\x1b[0m`
  : (_: number, text: string) => text;
const out = (text: string) => process.stdout.write(`${text}\n`);
const example = (name: string) => fileURLToPath(new URL(`../../${name}/dist/main.js`, import.meta.url));

type Mode = "legacy" | "auto" | { pin: "2026-07-28" };
type Message = Parameters<NonNullable<StdioClientTransport["onmessage"]>>[0];

// A subclass probes on the one process it spawned, so the whole conversation passes through this tap.
class TappedTransport extends StdioClientTransport {}

function tap(transport: TappedTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    out(`${color(36, "→")} ${JSON.stringify(message)}`);
    return send(message);
  };
  let handler: TappedTransport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    get: () =>
      handler &&
      ((message: Message, extra?: unknown) => {
        out(`${color(33, "←")} ${JSON.stringify(message)}`);
        return (handler as (m: Message, e?: unknown) => void)(message, extra);
      }),
    set: (value) => {
      handler = value;
    },
  });
}

async function session(
  title: string,
  server: string,
  mode: Mode,
  script: (client: Client) => Promise<void>,
  capabilities?: Record<string, Record<string, unknown>>,
) {
  out(`\n${color(1, `== ${title} ==`)}`);
  const transport = new TappedTransport({ command: process.execPath, args: [example(server)] });
  tap(transport);
  const client = new Client(
    { name: "toolsmith-demo", version: "0.1.0" },
    { versionNegotiation: { mode }, ...(capabilities ? { capabilities } : {}) },
  );
  if (capabilities) answerAsTheUser(client);
  await client.connect(transport);
  try {
    await script(client);
  } catch (error) {
    out(`   (the client threw: ${(error as Error).message})`);
  } finally {
    await client.close();
  }
}

// The demo's stand-in for a person and a model: it answers the server's questions the same way every time.
function answerAsTheUser(client: Client): void {
  client.setRequestHandler("elicitation/create", async (request) => {
    out(color(2, `   (the user is asked: ${request.params.message}; picks an aisle seat)`));
    return { action: "accept", content: { seat: "aisle", meal: "vegetarian" } };
  });
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    model: "demo-model",
    content: { type: "text", text: "Ana flies to Reykjavik on 12 March, aisle seat, vegetarian meal." },
  }));
}

async function travel(client: Client): Promise<void> {
  const search = await client.callTool(
    { name: "search_flights", arguments: { from: "LHR", to: "KEF", date: "2027-03-12" } },
    {
      onprogress: (progress) =>
        out(color(2, `   (progress ${progress.progress}/${progress.total}: ${progress.message})`)),
    },
  );
  const [offer] = (search.structuredContent as { offers: { id: string }[] }).offers;
  const booked = await client.callTool({
    name: "book_flight",
    arguments: { offerId: offer?.id, passenger: "Ana Lima" },
  });
  const { bookingId } = booked.structuredContent as { bookingId: string };
  await client.callTool({ name: "trip_summary", arguments: { bookingId } });
  await client.complete({ ref: { type: "ref/prompt", name: "plan_trip" }, argument: { name: "from", value: "LH" } });
}

await session("quickstart (core API), handshake era: initialize, then requests", "quickstart", "legacy", async (c) => {
  await c.listTools();
  await c.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  await c.callTool({ name: "add", arguments: { a: "two" } });
  await c.readResource({ uri: "notes://1" });
  await c.callTool({ name: "no_such_tool", arguments: {} });
});

await session(
  "word-tools (decorators), stateless era 2026-07-28: _meta on every request",
  "word-tools",
  { pin: "2026-07-28" },
  async (c) => {
    await c.listTools();
    await c.callTool({ name: "word_count", arguments: { text: "the borrow checker is not your enemy" } });
    await c.callTool({ name: "snake_case", arguments: { text: "BorrowChecker" } });
    await c.callTool({ name: "word_count", arguments: { text: "" } });
  },
);

await session("wiretap (decorators): show_wire returns the wire itself", "wiretap", "legacy", async (c) => {
  const result = await c.callTool({ name: "show_wire", arguments: {} });
  out(color(2, (result.content as { text: string }[])[0]?.text ?? ""));
});

await session("notes (decorators), negotiated automatically", "notes", "auto", async (c) => {
  await c.callTool({ name: "add", arguments: { title: "Demo", body: "written by the demo", tags: ["demo"] } });
  await c.listResourceTemplates();
  await c.readResource({ uri: "notes://3" });
  await c.getPrompt({ name: "summarise", arguments: { topic: "this week" } });
});

const asks = { elicitation: {}, sampling: {} };
await session(
  "travel-desk (decorators), handshake era: progress, elicitation and sampling as requests to the client",
  "travel-desk",
  "legacy",
  travel,
  asks,
);
await session(
  "travel-desk, stateless era: the same methods answer input_required; the client answers and retries",
  "travel-desk",
  { pin: "2026-07-28" },
  travel,
  asks,
);
