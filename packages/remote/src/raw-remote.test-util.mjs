import { createInterface } from "node:readline";

// A remote that writes its own lines on stdio (the handshake era), for what an SDK never does: progress and the reply
// in one write, a flood of notifications before a reply, garbage and a reply to an id nobody asked, dying mid-call.
const tools = ["steps", "flood", "garbage", "malformed", "die", "huge", "add"].map((name) => ({
  name,
  description: name,
  inputSchema: { type: "object" },
}));

const line = (message) => `${JSON.stringify(message)}\n`;
const reply = (id, result) => line({ jsonrpc: "2.0", id, result });
const progress = (token, n, total) =>
  line({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: n, total } });
const log = (n) =>
  line({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `flood ${n}` } });
const text = (value) => ({ content: [{ type: "text", text: value }] });

function call(id, params) {
  const token = params._meta?.progressToken;
  const args = params.arguments ?? {};
  switch (params.name) {
    case "steps":
      // Every progress and the reply in one write: the reader gets them in one chunk.
      return process.stdout.write(
        progress(token, 1, 3) + progress(token, 2, 3) + progress(token, 3, 3) + reply(id, text("stepped")),
      );
    case "flood": {
      const n = args.n ?? 100_000;
      let batch = "";
      for (let i = 1; i <= n; i++) {
        batch += progress(token, i, n) + log(i);
        if (batch.length > 1 << 20) {
          process.stdout.write(batch);
          batch = "";
        }
      }
      return process.stdout.write(`${batch}${reply(id, text("flooded"))}`);
    }
    case "garbage":
      return process.stdout.write(`not json at all\n{"jsonrpc":1}\n${reply(id + 1000, text("not yours"))}`);
    case "huge":
      return process.stdout.write(reply(id, text("x".repeat(args.bytes))));
    case "die":
      return process.stdout.write(progress(token, 1, 2), () => process.exit(1));
    case "malformed":
      return process.stdout.write(reply(id, { content: "not an array", isError: "yes" }));
    default:
      return process.stdout.write(reply(id, text(String((args.a ?? 0) + (args.b ?? 0)))));
  }
}

createInterface({ input: process.stdin }).on("line", (input) => {
  const message = JSON.parse(input);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    process.stdout.write(
      reply(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {}, logging: {} },
        serverInfo: { name: "raw-remote", version: "1.0.0" },
      }),
    );
  } else if (message.method === "tools/list") process.stdout.write(reply(message.id, { tools }));
  else if (message.method === "tools/call") call(message.id, message.params);
  else process.stdout.write(reply(message.id, {}));
});
