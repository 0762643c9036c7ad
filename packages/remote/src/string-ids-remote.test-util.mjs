import { createInterface } from "node:readline";

// A handshake-era remote on stdio that answers each call under its id written as a string ("3" for 3), which the
// official client takes as the same id (it reads a reply's id as a number); "confirm" asks its caller first.
const tools = ["echo", "confirm"].map((name) => ({ name, description: name, inputSchema: { type: "object" } }));
const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (value) => ({ content: [{ type: "text", text: value }] });
const waiting = new Map();
let asked = 0;

createInterface({ input: process.stdin }).on("line", (input) => {
  const message = JSON.parse(input);
  if (message.method === undefined && message.id !== undefined) {
    waiting.get(message.id)?.(message);
    return;
  }
  if (message.id === undefined) return;
  const id = String(message.id);
  if (message.method === "initialize") {
    write({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "string-ids", version: "1.0.0" },
      },
    });
  } else if (message.method === "tools/list") write({ jsonrpc: "2.0", id: message.id, result: { tools } });
  else if (message.method === "tools/call" && message.params.name === "confirm") {
    const question = `q-${++asked}`;
    waiting.set(question, (answer) => {
      waiting.delete(question);
      write({ jsonrpc: "2.0", id, result: text(JSON.stringify(answer.result ?? answer.error)) });
    });
    const params = { message: "Sure?", requestedSchema: { type: "object", properties: {} } };
    write({ jsonrpc: "2.0", id: question, method: "elicitation/create", params });
  } else write({ jsonrpc: "2.0", id, result: text("echoed") });
});
