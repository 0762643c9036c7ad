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

      it.each(HOSTILE_CASES)("answers $name as Node does", async (hostile) => {
        expect(await send(served.urls.main as string, hostile)).toEqual(onNode[door].get(hostile.name));
      });
    });
  }
}
