// The conversation every transport replays in both eras: each feature of the fixture once, its errors, and the
// client's side of asking (elicitation, sampling, roots; 2026-07-28 input rounds).
import { clientAnswer } from "./channels.mjs";

/** Every page of a list method, following `nextCursor`. */
export async function listAll(ch, method, label = method) {
  let cursor;
  for (let page = 1; ; page++) {
    const reply = await ch.send(`${label} page ${page}`, ch.msg(method, cursor === undefined ? undefined : { cursor }));
    cursor = reply?.result?.nextCursor;
    if (cursor === undefined || page > 20) return;
  }
}

/** A call; in 2026-07-28, an `input_required` answer is answered and retried as a client does. */
export async function call(ch, label, name, args, options = {}) {
  const message = ch.msg("tools/call", { name, ...(args === undefined ? {} : { arguments: args }) }, options);
  const where = options.to === undefined ? {} : { to: options.to };
  let reply = await ch.send(label, message, where);
  for (let round = 1; reply?.result?.resultType === "input_required" && round <= 3; round++) {
    const inputResponses = {};
    for (const [key, asked] of Object.entries(reply.result.inputRequests ?? {})) {
      inputResponses[key] = clientAnswer(asked.method, asked.params);
    }
    const params = { ...message.params, inputResponses, requestState: reply.result.requestState };
    delete params._meta;
    reply = await ch.send(`${label} › round ${round}`, ch.msg("tools/call", params, options), where);
  }
  return reply;
}

/** Tools: results, each kind of error, progress, logs, asking the client, list changes. */
export async function tools(ch) {
  const stateless = ch.era === "stateless";
  await listAll(ch, "tools/list");
  await ch.send("tools/list with a forged cursor", ch.msg("tools/list", { cursor: "forged" }));
  await call(ch, "add", "add", { a: 1, b: 2 });
  await call(ch, "add with bad arguments", "add", { a: "one", b: 1.5 });
  await call(ch, "add without arguments", "add");
  await call(ch, "echo too long", "echo", { text: "x".repeat(21) });
  await call(ch, "echo with an extra key", "echo", { text: "hi", constructor: "c" });
  await call(ch, "unknown tool", "nope", {});
  await call(ch, "fail (throws)", "fail", {});
  await call(ch, "fail (McpError)", "fail", { mcp: true });
  await call(ch, "bad output", "bad_output", {});
  await call(ch, "unserialisable result", "big", {});
  await call(ch, "content blocks", "content", {});
  await call(ch, "guarded tool", "admin_only", {});
  await call(ch, "region", "region", { region: "eu-west" });
  await ch.send("tools/call without a name", ch.msg("tools/call", { arguments: {} }));
  await call(ch, "count with progress", "count", { to: 3 }, { meta: { progressToken: "p-1" } });
  await call(ch, "count past its bound", "count", { to: 9 });
  if (stateless) {
    await call(ch, "chatty at debug", "chatty", {}, { meta: { "io.modelcontextprotocol/logLevel": "debug" } });
    await call(ch, "chatty at a bad level", "chatty", {}, { meta: { "io.modelcontextprotocol/logLevel": "loud" } });
    await call(ch, "chatty at no level", "chatty", {});
    await ch.send("logging/setLevel (not in this era)", ch.msg("logging/setLevel", { level: "debug" }));
    await ch.send("ping (not in this era)", ch.msg("ping"));
  } else {
    await call(ch, "chatty before a level", "chatty", {});
    await ch.send("logging/setLevel debug", ch.msg("logging/setLevel", { level: "debug" }));
    await call(ch, "chatty at debug", "chatty", {});
    await ch.send("logging/setLevel bad", ch.msg("logging/setLevel", { level: "loud" }));
    await ch.send("logging/setLevel warning", ch.msg("logging/setLevel", { level: "warning" }));
    await ch.send("ping", ch.msg("ping"));
  }
  await call(ch, "elicitation", "ask_name", {});
  await call(ch, "sampling", "summarize", { text: "a long text" });
  await call(ch, "roots", "list_roots", {});
  // A handle's change reaches a server's other processes in time, not at once: these go to one (over HTTP).
  await call(ch, "hidden tool", "extra", {}, { to: 0 });
  await call(ch, "toggle on", "toggle", {}, { to: 0 });
  await call(ch, "hidden tool, now on", "extra", {}, { to: 0 });
  await call(ch, "toggle off", "toggle", {}, { to: 0 });
}

/** Resources, templates, prompts and completions. */
export async function resources(ch) {
  await listAll(ch, "resources/list");
  await listAll(ch, "resources/templates/list");
  for (const [label, uri] of [
    ["read text", "fixture://readme"],
    ["read blob", "fixture://logo"],
    ["read from a template", "fixture://items/10"],
    ["read a missing item", "fixture://items/99"],
    ["read a bad template variable", "fixture://numbers/abc"],
    ["read a typed template variable", "fixture://numbers/21"],
    ["read a guarded resource", "fixture://secret"],
    ["read an unknown uri", "nowhere://x"],
  ]) {
    await ch.send(label, ch.msg("resources/read", { uri }));
  }
  await ch.send("read without a uri", ch.msg("resources/read", {}));
  await listAll(ch, "prompts/list");
  await ch.send("prompt", ch.msg("prompts/get", { name: "greet", arguments: { name: "Ada", style: "formal" } }));
  await ch.send("prompt missing an argument", ch.msg("prompts/get", { name: "greet", arguments: {} }));
  await ch.send("prompt without arguments", ch.msg("prompts/get", { name: "simple" }));
  await ch.send("unknown prompt", ch.msg("prompts/get", { name: "nope" }));
  const complete = (label, ref, argument, context) =>
    ch.send(label, ch.msg("completion/complete", { ref, argument, ...(context ? { context } : {}) }));
  await complete("complete a prompt argument", { type: "ref/prompt", name: "greet" }, { name: "style", value: "f" });
  await complete(
    "complete with context",
    { type: "ref/prompt", name: "greet" },
    { name: "name", value: "Dr" },
    { arguments: { style: "formal" } },
  );
  await complete(
    "complete a template variable",
    { type: "ref/resource", uri: "fixture://items/{id}" },
    { name: "id", value: "1" },
  );
  await complete("complete an unknown prompt", { type: "ref/prompt", name: "nope" }, { name: "x", value: "" });
  await complete("complete an unknown argument", { type: "ref/prompt", name: "greet" }, { name: "mood", value: "" });
}

/** What is not a valid request, sent as raw text (each answered, or not, by the server). */
export const BAD_INPUT = [
  ["malformed JSON", '{"jsonrpc":"2.0","id":1,"method":'],
  ["wrong jsonrpc", '{"jsonrpc":"1.0","id":"w","method":"tools/list"}'],
  ["no method", '{"jsonrpc":"2.0","id":"n"}'],
  ["method not a string", '{"jsonrpc":"2.0","id":"m","method":7}'],
  ["params not an object", '{"jsonrpc":"2.0","id":"p","method":"tools/list","params":[1]}'],
  ["id an object", '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}'],
  ["unknown method", '{"jsonrpc":"2.0","id":"u","method":"no/such"}'],
  ["an id past 2^53", '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"tools/list"}'],
  ["a response nobody asked for", '{"jsonrpc":"2.0","id":"r","result":{}}'],
  ["an empty batch", "[]"],
];
