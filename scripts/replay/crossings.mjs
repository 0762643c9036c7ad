#!/usr/bin/env node
// Which source files one `tools/call` crosses, per era and transport: a server built from the checkout runs under
// V8's precise coverage (crossings-server.mjs); after a warm-up (the opening, tools/list, one call) the counts are
// reset, exactly one tools/call is made, and the files whose functions ran are listed, mapped back to src.
//
//   node scripts/replay/crossings.mjs [--checkout <dir>] [--rounds 3] [--json]
import { fork } from "node:child_process";
import { request } from "node:http";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { deadline } from "./wait.mjs";

const SERVER = fileURLToPath(new URL("./crossings-server.mjs", import.meta.url));
const HANDSHAKE = "2025-11-25";
const STATELESS = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": STATELESS,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "crossings", version: "1.0.0" },
};

function message(id, method, params, era) {
  const body = { jsonrpc: "2.0", id, method };
  if (params !== undefined || era === "stateless")
    body.params = { ...params, ...(era === "stateless" ? { _meta: META } : {}) };
  return body;
}

/** The forked server, with a way to ask it for coverage and to wait for its IPC messages. */
function start(checkout, transport) {
  const child = fork(SERVER, [checkout, transport], { stdio: ["pipe", "pipe", "inherit", "ipc"] });
  const inbox = [];
  let wake;
  child.on("message", (m) => {
    inbox.push(m);
    wake?.();
  });
  const next = async (what) => {
    const limit = deadline();
    try {
      while (inbox.length === 0) {
        const got = await Promise.race([new Promise((r) => (wake = r)), limit.promise]);
        if (got === "late") throw new Error(`the ${transport} server sent no ${what}`);
      }
      return inbox.shift();
    } finally {
      limit.clear();
    }
  };
  const take = async () => {
    child.send("take");
    return (await next("coverage")).taken;
  };
  return { child, next, take };
}

/** A stdio client: one request at a time, the reply awaited by its id. */
function stdioClient(child) {
  let buffered = "";
  const waiting = new Map();
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const reply = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      waiting.get(reply.id)?.(reply);
    }
  });
  return {
    send(body) {
      child.stdin.write(`${JSON.stringify(body)}\n`);
      if (body.id === undefined) return Promise.resolve(undefined);
      return new Promise((done) => waiting.set(body.id, done));
    },
  };
}

/** An HTTP client of one endpoint, keeping the session id `initialize` gave. */
function httpClient(url, era) {
  let session;
  return {
    send(body) {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      if (session) headers["mcp-session-id"] = session;
      if (era === "stateless") {
        headers["mcp-protocol-version"] = STATELESS;
        headers["mcp-method"] = body.method;
        if (body.method === "tools/call") headers["mcp-name"] = body.params.name;
      } else if (session) headers["mcp-protocol-version"] = HANDSHAKE;
      return new Promise((done, fail) => {
        const req = request(url, { method: "POST", headers, agent: false }, (res) => {
          session ??= res.headers["mcp-session-id"];
          let text = "";
          res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
          res.on("end", () => done(text));
        });
        req.on("error", fail);
        req.end(JSON.stringify(body));
      });
    },
  };
}

/** One transport and era: the files each measured tools/call crossed ({ package: { file: calls } } per round). */
async function measure(checkout, transport, era, rounds) {
  const server = start(checkout, transport);
  try {
    const ready = await server.next("ready");
    const client = transport === "stdio" ? stdioClient(server.child) : httpClient(ready.url, era);
    let id = 1;
    const call = () => client.send(message(id++, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }, era));
    if (era === "handshake") {
      await client.send(
        message(id++, "initialize", {
          protocolVersion: HANDSHAKE,
          capabilities: {},
          clientInfo: { name: "c", version: "1" },
        }),
      );
      await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
    await client.send(message(id++, "tools/list", undefined, era));
    await call();
    const measured = [];
    for (let round = 0; round < rounds; round++) {
      await server.take();
      const reply = await call();
      const text = typeof reply === "string" ? reply : JSON.stringify(reply);
      if (!text.includes('"text":"3"')) throw new Error(`unexpected reply: ${text}`);
      measured.push(await server.take());
    }
    return measured;
  } finally {
    server.child.kill();
  }
}

function summary(rounds) {
  const seen = new Map();
  for (const round of rounds) {
    for (const [pkg, files] of Object.entries(round)) {
      for (const file of Object.keys(files)) seen.set(`${pkg}\t${file}`, (seen.get(`${pkg}\t${file}`) ?? 0) + 1);
    }
  }
  const perPackage = {};
  const varying = [];
  for (const [key, times] of seen) {
    const [pkg, file] = key.split("\t");
    perPackage[pkg] ??= [];
    perPackage[pkg].push(file);
    if (times !== rounds.length) varying.push(`${pkg}/${file} (${times} of ${rounds.length} rounds)`);
  }
  for (const files of Object.values(perPackage)) files.sort();
  const total = Object.values(perPackage).reduce((sum, files) => sum + files.length, 0);
  return { total, perPackage, varying };
}

async function main() {
  const { values } = parseArgs({
    options: {
      checkout: { type: "string", default: "." },
      rounds: { type: "string", default: "3" },
      json: { type: "boolean" },
    },
  });
  const checkout = resolve(values.checkout);
  const results = {};
  for (const transport of ["stdio", "http"]) {
    for (const era of ["handshake", "stateless"]) {
      results[`${transport} ${era === "handshake" ? HANDSHAKE : STATELESS}`] = summary(
        await measure(checkout, transport, era, Number(values.rounds)),
      );
    }
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  process.stdout.write(`Files one tools/call crosses (${checkout}):\n`);
  for (const [name, { total, perPackage, varying }] of Object.entries(results)) {
    const counts = Object.entries(perPackage).map(([pkg, files]) => `${pkg} ${files.length}`);
    process.stdout.write(`\n${name}: ${total} files (${counts.join(", ")})\n`);
    for (const [pkg, files] of Object.entries(perPackage)) process.stdout.write(`  ${pkg}: ${files.join(" ")}\n`);
    if (varying.length > 0) process.stdout.write(`  not in every round: ${varying.join(", ")}\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(2);
});
