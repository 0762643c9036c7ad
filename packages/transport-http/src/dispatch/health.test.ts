import { once } from "node:events";
import { connect } from "node:net";
import { createServer, DefinitionError } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { type HttpServer, listen } from "../doors/node-server.js";

// The health route: a load balancer's probe, answered without MCP and before the Host/Origin checks.

const server = () => {
  const made = createServer({ name: "health", version: "1" });
  made.tool({ name: "one", description: "One", handler: () => "1" });
  return made;
};
// A probe by address, from a host the DNS-rebinding check refuses (and a browser's Origin it refuses too).
const probe = (method: string, path = "/healthz") =>
  new Request(`http://10.1.2.3:8080${path}`, { method, headers: { origin: "http://evil.example.com" } });

const open: HttpServer[] = [];
afterEach(async () => {
  for (const listening of open.splice(0)) await listening.close();
});

describe("GET /healthz", () => {
  it("answers 200 ok to GET and HEAD whatever the Host, and 405 to other methods", async () => {
    const handle = createHttpHandler(server());
    const got = await handle(probe("GET"));
    expect(got.status).toBe(200);
    expect(got.headers.get("cache-control")).toBe("no-store");
    expect(await got.text()).toBe("ok\n");
    const head = await handle(probe("HEAD"));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const posted = await handle(probe("POST"));
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
    // Every other path still goes through the checks: the same Host is refused at the MCP endpoint.
    expect((await handle(probe("GET", "/mcp"))).status).toBe(403);
  });

  it("moves with healthPath, and is gone with healthPath: false", async () => {
    const moved = createHttpHandler(server(), { healthPath: "/livez" });
    expect((await moved(probe("GET", "/livez"))).status).toBe(200);
    expect((await moved(probe("GET", "/healthz"))).status).toBe(403);
    const none = createHttpHandler(server(), { healthPath: false });
    expect((await none(probe("GET", "/healthz"))).status).toBe(403);
  });

  it("is served by listen (node:http), HEAD without a body", async () => {
    const listening = await listen(server(), { port: 0, log: null });
    open.push(listening);
    const base = new URL(listening.url);
    const got = await fetch(new URL("/healthz", base));
    expect(got.status).toBe(200);
    expect(await got.text()).toBe("ok\n");
    const head = await fetch(new URL("/healthz", base), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("is exact and bare over node:http: a query is ignored, a trailing slash or another method is not the route", async () => {
    const listening = await listen(server(), { port: 0, log: null });
    open.push(listening);
    const port = Number(new URL(listening.url).port);
    const at = async (head: string) => raw(port, `${head}\r\nConnection: close\r\n\r\n`);
    expect(await at("GET /healthz?probe=1 HTTP/1.1\r\nHost: 10.1.2.3")).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok\n$/);
    // A load balancer speaking HTTP/1.0 sends no Host at all.
    expect(await at("GET /healthz HTTP/1.0")).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok\n$/);
    const head = await at("HEAD /healthz HTTP/1.1\r\nHost: 10.1.2.3");
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.endsWith("\r\n\r\n")).toBe(true);
    for (const method of ["OPTIONS", "TRACE", "PUT", "DELETE", "PATCH", "PROPFIND"]) {
      expect(await at(`${method} /healthz HTTP/1.1\r\nHost: 10.1.2.3`)).toMatch(
        /^HTTP\/1\.1 405 [\s\S]*allow: GET, HEAD\r\n/i,
      );
    }
    // Not the health route: behind the checks like any other path.
    expect(await at("GET /healthz/ HTTP/1.1\r\nHost: 10.1.2.3")).toMatch(/^HTTP\/1\.1 403 /);
  });

  it("is found in an absolute-form request target (RFC 9112: a server must accept it)", async () => {
    const listening = await listen(server(), { port: 0, log: null });
    open.push(listening);
    const port = Number(new URL(listening.url).port);
    const probed = await raw(
      port,
      "GET http://10.1.2.3:8080/healthz?x HTTP/1.1\r\nHost: 10.1.2.3:8080\r\nConnection: close\r\n\r\n",
    );
    expect(probed).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok\n$/);
    // And the MCP endpoint alike (a loopback Host, so the checks let it through to the endpoint's own 405).
    const mcp = await raw(
      port,
      `PUT http://localhost:${port}/mcp HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(mcp).toMatch(/^HTTP\/1\.1 405 /);
  });

  it("may not be the MCP endpoint, and is a path", () => {
    expect(() => createHttpHandler(server(), { healthPath: "/mcp" })).toThrow(DefinitionError);
    expect(() => createHttpHandler(server(), { path: "/healthz" })).toThrow(/healthPath and path are both \/healthz/);
    expect(() => createHttpHandler(server(), { healthPath: "healthz" })).toThrow(/healthPath must be a path/);
  });

  it("is a path alone, as path is: one holding ? or # (never matched) is a DefinitionError", async () => {
    for (const options of [
      { healthPath: "/healthz?probe" },
      { healthPath: "/healthz#x" },
      { path: "/mcp?v=1" },
      { path: "/mcp#top" },
    ]) {
      expect(() => createHttpHandler(server(), options)).toThrow(DefinitionError);
      await expect(listen(server(), { ...options, port: 0, log: null })).rejects.toThrow(/holds "\?" or "#"/);
    }
  });
});

// One request on its own connection, its whole answer as text (the connection is closed by the server).
async function raw(port: number, request: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.write(request);
  await once(socket, "close");
  return text;
}
