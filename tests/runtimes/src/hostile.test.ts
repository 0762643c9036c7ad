import { createServer as createNodeServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpHandler, type HttpServer, listen, nodeListener } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureServer, LIMIT_BYTES } from "../../transports/src/fixture-server.js";
import { type Answer, HOSTILE_CASES, send } from "./hostile-cases.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";
import { type Door, type RuntimeProcess, serveFixtures } from "./spawn-runtime.js";

// The same hostile requests (hostile-cases.ts) to Node's doors, then to every door of every runtime: each answers
// each one exactly as Node's same door does (status, media type, JSON-RPC error code and message, result keys).
// Node's createHttpHandler is served through nodeListener, with the handler's own defaults (no listen port).

/** What a runtime's door is known to answer otherwise, by case name: they run as it.fails, with the reason. */
const KNOWN: Record<string, Record<string, string>> = {
  // Node's listen reads (and drops) the rest of a body it refused, so the connection stays usable; Bun's and Deno's
  // node:http reset it, and the client's next request on it fails with ECONNRESET.
  "bun listen": { "a call on the connection of a body refused mid-way": "node:http resets the connection" },
  "deno listen": { "a call on the connection of a body refused mid-way": "node:http resets the connection" },
};

/**
 * Where a runtime's door may reset the connection instead of answering: Bun.serve, and Bun's and Deno's node:http
 * under listen, answer 413 to a body still being sent and close the connection with the rest unread, so the
 * client, still writing, may get EPIPE or ECONNRESET before it reads the 413 (a race). Node's doors read the rest
 * (bounded) first; so does Deno.serve.
 */
const CHUNKED_OVER = ["a body over the limit, chunked", "a huge body (4 MiB), chunked"];
const MAY_RESET: Record<string, readonly string[]> = {
  "bun serve": [...CHUNKED_OVER, "a call on the connection of a body refused mid-way"],
  "bun listen": CHUNKED_OVER,
  "deno listen": CHUNKED_OVER,
};
const RESETS = [{ reset: "EPIPE" }, { reset: "ECONNRESET" }];

let nodeListen: HttpServer;
let nodeHandler: NodeServer;
const onNode: Record<Door, Map<string, Answer>> = { serve: new Map(), listen: new Map() };

beforeAll(async () => {
  nodeListen = await listen(createFixtureServer(), { port: 0, log: null, maxBodyBytes: LIMIT_BYTES });
  nodeHandler = createNodeServer(nodeListener(createHttpHandler(createFixtureServer(), { maxBodyBytes: LIMIT_BYTES })));
  await new Promise<void>((resolve) => nodeHandler.listen(0, "127.0.0.1", resolve));
  const handlerUrl = `http://127.0.0.1:${(nodeHandler.address() as AddressInfo).port}/mcp`;
  for (const hostile of HOSTILE_CASES) {
    onNode.listen.set(hostile.name, await send(nodeListen.url, hostile));
    onNode.serve.set(hostile.name, await send(handlerUrl, hostile));
  }
});
afterAll(async () => {
  await nodeListen?.close();
  nodeHandler?.closeAllConnections();
  await new Promise((resolve) => nodeHandler?.close(resolve));
});

describe("Node", () => {
  it.each(HOSTILE_CASES)("answers $name with $status (createHttpHandler: the same but where it says)", (hostile) => {
    expect(onNode.listen.get(hostile.name)?.status).toBe(hostile.status);
    expect(onNode.serve.get(hostile.name)?.status).toBe(hostile.handlerStatus ?? hostile.status);
  });
});

for (const name of RUNTIME_NAMES) {
  const target = runtime(name);
  for (const door of ["serve", "listen"] as Door[]) {
    describe(`${name}: ${door === "serve" ? "createHttpHandler in its own server" : "listen"}`, () => {
      let served: RuntimeProcess & { urls: Record<string, string> };
      beforeAll(async () => {
        served = await serveFixtures(target, door, { fixtures: ["main"] });
      });
      afterAll(() => served?.stop());

      for (const hostile of HOSTILE_CASES) {
        const known = KNOWN[`${name} ${door}`]?.[hostile.name];
        (known ? it.fails : it)(
          `answers ${hostile.name} as Node does${known ? ` (known: ${known})` : ""}`,
          async () => {
            const answer = await send(served.urls.main as string, hostile).catch((error: NodeJS.ErrnoException) => ({
              reset: error.code,
            }));
            const node = onNode[door].get(hostile.name);
            if (MAY_RESET[`${name} ${door}`]?.includes(hostile.name)) expect([node, ...RESETS]).toContainEqual(answer);
            else expect(answer).toEqual(node);
          },
        );
      }
    });
  }
}
