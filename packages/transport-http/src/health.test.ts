import { createServer } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "./http-handler.js";
import { type HttpServer, listen } from "./listen.js";

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
});
