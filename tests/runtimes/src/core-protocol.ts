// Core's protocol in memory, both eras, on whatever runtime runs this (Node, Bun, Deno): the shared fixture's
// server driven by core's own test client (@toolsmith/core/testing), the same JSON text a transport would carry.
// Prints one JSON line on stdout, {"passed":[...],"failed":[...]}, and exits 1 if anything failed.
import { isDeepStrictEqual } from "node:util";
import { ErrorCode, LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION, McpError } from "@toolsmith/core";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { createFixtureServer } from "@toolsmith/tests-transports/fixture-server";
import { releaseStdout } from "@toolsmith/transport-stdio";

const passed: string[] = [];
const failed: string[] = [];

function check(label: string, actual: unknown, expected: unknown): void {
  if (isDeepStrictEqual(actual, expected)) passed.push(label);
  else failed.push(`${label}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const text = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text;
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "answered",
    (error: unknown) => (error instanceof McpError ? error.code : String(error)),
  );
const errorCode = (line: string | undefined) => (line ? JSON.parse(line).error?.code : undefined);

async function era(label: string, client: TestClient, modern: boolean): Promise<void> {
  const at = (what: string) => `${label}: ${what}`;
  check(at("era"), client.era, modern ? "stateless" : "handshake");
  const info = modern
    ? (client.serverResult._meta as Record<string, unknown>)?.["io.modelcontextprotocol/serverInfo"]
    : client.serverResult.serverInfo;
  check(at("server info"), info, { name: "transport-fixture", version: "1.0.0" });
  const tools = (await client.listTools()).map((tool) => tool.name);
  check(
    at("tools/list has echo and add"),
    ["echo", "add"].every((name) => tools.includes(name)),
    true,
  );
  check(at("tools/call with structured output"), (await client.callTool("add", { a: 2, b: 3 })).structuredContent, {
    sum: 5,
  });
  check(at("tools/call echo"), text(await client.callTool("echo", { text: "é 😀 \u2028" })), "é 😀 \u2028");
  check(at("invalid arguments: an isError result"), (await client.callTool("echo", { text: 5 })).isError, true);
  check(at("a thrown error: an isError result"), (await client.callTool("fail")).isError, true);
  check(at("an unknown tool: -32602"), await codeOf(client.callTool("nope")), ErrorCode.InvalidParams);
  check(at("an unknown method: -32601"), await codeOf(client.request("no/such/method")), ErrorCode.MethodNotFound);
  check(at("malformed JSON: -32700"), errorCode(await client.send('{"jsonrpc":"2.0","id":9,')), ErrorCode.ParseError);
  check(at("asks the client (elicitation)"), text(await client.callTool("ask_name", { role: "pilot" })), "Hello, Ada!");
  check(at("resources/read"), (await client.readResource("fixture://readme")).contents, [
    { uri: "fixture://readme", mimeType: "text/plain", text: "Read me first." },
  ]);
  check(at("prompts/get"), (await client.getPrompt("greet", { name: "Ada" })).messages[0]?.content, {
    type: "text",
    text: "Say a plain hello to Ada.",
  });
  const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}, "plain": 1}');
  check(at("__proto__ in arguments"), (await client.callTool("inspect", hostile)).structuredContent, {
    keys: ["plain"],
    prototypeIsObject: true,
    polluted: false,
  });
}

const elicit = async () => ({ action: "accept" as const, content: { name: "Ada" } });
const server = createFixtureServer();
const handshake = await createTestClient(server, { protocolVersion: LATEST_HANDSHAKE_VERSION, elicit });
await era("2025-11-25", handshake, false);
const stateless = await createTestClient(server, { protocolVersion: LATEST_STATELESS_VERSION, elicit });
await era("2026-07-28", stateless, true);

// A bare stateless request, as a client with no discovery sends it: everything it needs is in its _meta.
const meta = {
  "io.modelcontextprotocol/protocolVersion": LATEST_STATELESS_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const call = { jsonrpc: "2.0", id: "bare", method: "tools/call", params: { name: "add", arguments: { a: 1, b: 1 } } };
const reply = JSON.parse(
  (await stateless.send(JSON.stringify({ ...call, params: { ...call.params, _meta: meta } }))) ?? "{}",
);
check("2026-07-28: a bare stateless tools/call", reply.result?.structuredContent, { sum: 2 });

// The fixture's module imports the stdio transport, whose import moved stdout to stderr: the verdict goes to stdout.
releaseStdout();
process.stdout.write(`${JSON.stringify({ passed, failed })}\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
