// What bench/registration.mjs measures in each child process: N tools registered, then tools/list in memory.
// A server file gives `load` (its imports), `register` (every tool) and `open` (a connection that takes a request
// line and answers with the reply line); this prints one JSON line of results on stdout and nothing else.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { z } from "zod";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "1000" },
    lists: { type: "string", default: "3" },
    era: { type: "string", default: "2025-11-25" },
  },
});
const TOOLS = Number(values.tools);
const LISTS = Number(values.lists);
const ERA = values.era;
if (!(TOOLS >= 1 && LISTS >= 1)) throw new Error("--tools and --lists take whole numbers of at least 1");

const WORDS = ["city", "limit", "query", "unit", "verbose", "owner", "label", "count", "region", "format", "since"];
const UNITS = ["metric", "imperial", "kelvin"];

// The i-th tool's field f: each a distinct zod schema object with its own description, as a real server has.
function field(i, f) {
  switch ((i + f) % 5) {
    case 0:
      return z.string().min(1).describe(`The ${WORDS[f]} tool ${i} works on`);
    case 1:
      return z.number().int().min(1).max(100).describe(`How many results tool ${i} returns at most`);
    case 2:
      return z.enum(UNITS).describe(`The units tool ${i} answers in`);
    case 3:
      return z.boolean().optional().describe(`Whether tool ${i} explains its answer`);
    default:
      return z.string().max(200).optional().describe(`A free-text ${WORDS[f]} for tool ${i}`);
  }
}

/** N tool specs, each 2–4 described fields: built before the clock starts, the same for every server. */
export function toolSpecs(count) {
  return Array.from({ length: count }, (_, i) => {
    const shape = {};
    for (let f = 0; f < 2 + (i % 3); f++) shape[`${WORDS[(i + f) % WORDS.length]}_${f}`] = field(i, f);
    return { name: `tool_${i}`, description: `Tool number ${i}: looks things up for the model`, shape };
  });
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function line(id, method, params = {}) {
  const full = ERA === "2026-07-28" ? { ...params, _meta: META } : params;
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: full });
}

const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];

/**
 * Run one sample and print its JSON line.
 * @param {{ load: () => Promise<unknown>, register: (loaded: unknown, specs: object[]) => unknown,
 *   open: (loaded: unknown, server: unknown) => Promise<{ request(line: string): Promise<string>,
 *   notify(line: string): unknown }> }} server
 */
export async function measure({ load, register, open }) {
  let t = performance.now();
  const specs = toolSpecs(TOOLS);
  const schemasMs = performance.now() - t;
  t = performance.now();
  const loaded = await load();
  const importMs = performance.now() - t;

  const heapBefore = heap();
  // CPU time beside wall time: on a busy machine it says what the work cost, not how long it waited for a core.
  const cpu = process.cpuUsage();
  t = performance.now();
  const server = register(loaded, specs);
  const registerMs = performance.now() - t;
  const { user, system } = process.cpuUsage(cpu);
  const heapRegistered = heap();

  const client = await open(loaded, server);
  if (ERA === "2026-07-28") await client.request(line(0, "server/discover"));
  else {
    const params = { protocolVersion: ERA, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } };
    await client.request(line(0, "initialize", params));
    await client.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }

  t = performance.now();
  const first = await client.request(line(1, "tools/list"));
  const firstListMs = performance.now() - t;
  const steady = [];
  let last = first;
  for (let i = 0; i < LISTS; i++) {
    t = performance.now();
    last = await client.request(line(2 + i, "tools/list"));
    steady.push(performance.now() - t);
  }
  const heapListed = heap();

  // Checked after the clock: every tool listed, with its fields, by both the first list and the last.
  for (const [text, id] of [
    [first, 1],
    [last, 1 + LISTS],
  ]) {
    const reply = JSON.parse(text);
    const tools = reply.result?.tools;
    if (reply.id !== id || tools?.length !== TOOLS) throw new Error(`bad tools/list reply: ${text.slice(0, 300)}`);
    const expected = Object.keys(specs[TOOLS - 1].shape).join();
    const listed = Object.keys(tools[TOOLS - 1].inputSchema?.properties ?? {}).join();
    if (listed !== expected) throw new Error(`last tool lists fields ${listed}, not ${expected}`);
  }
  const result = {
    schemasMs,
    importMs,
    registerMs,
    registerCpuMs: (user + system) / 1000,
    firstListMs,
    steadyListMs: median(steady),
    heapBeforeMb: heapBefore,
    heapRegisteredMb: heapRegistered,
    heapListedMb: heapListed,
    listKb: Buffer.byteLength(first) / 1024,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
