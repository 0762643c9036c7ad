import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createVault } from "../vault/vault.js";
import { documentFor, documentServer } from "./document-server.test-util.js";
import { MAX_FETCHES_AT_ONCE } from "./metadata-document.js";
import { closeRecordedStores, recordedStore } from "./recorded-store.test-util.js";
import { type ClientRegistryOptions, createClientRegistry } from "./registry.js";

const SECRET = "a test secret of at least thirty-two bytes";
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  closeRecordedStores();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function registry(options: Partial<ClientRegistryOptions> = {}) {
  const raw = recordedStore();
  return { raw, registry: createClientRegistry({ vault: createVault(raw.store, SECRET), ...options }) };
}

async function serve(handle: Parameters<typeof documentServer>[0]) {
  const server = await documentServer(handle);
  servers.push(server);
  return server;
}

function sendJson(response: ServerResponse, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(200, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

describe("client ID metadata documents: the accepting path (development, http on 127.0.0.1)", () => {
  it("fetches, checks and keeps the document: one fetch for two lookups", async () => {
    const server = await serve((request, response) =>
      sendJson(response, documentFor(`http://127.0.0.1:${server.port}${request.url}`)),
    );
    const { registry: clients } = registry({ development: true });
    const clientId = `${server.origin}/oauth/client.json`;
    const client = await clients.resolve(clientId);
    expect(client).toEqual({
      clientId,
      clientName: "Example MCP Client",
      redirectUris: ["http://127.0.0.1:3000/callback", "http://localhost:3000/callback"],
      tokenEndpointAuthMethod: "none",
      grantTypes: ["authorization_code", "refresh_token"],
      source: "metadata-document",
    });
    expect(await clients.resolve(clientId)).toEqual(client);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.accept).toBe("application/json");
  });

  it("coalesces lookups of one URL made at once into one fetch", async () => {
    const server = await serve((request, response) =>
      sendJson(response, documentFor(`http://127.0.0.1:${server.port}${request.url}`)),
    );
    const { registry: clients } = registry({ development: true });
    const clientId = `${server.origin}/client.json`;
    const found = await Promise.all([clients.resolve(clientId), clients.resolve(clientId), clients.resolve(clientId)]);
    expect(found.every((client) => client?.clientId === clientId)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("connects to the address it resolved and checked, the name kept for the Host header", async () => {
    const server = await serve((request, response) =>
      sendJson(response, documentFor(`http://client.test:${server.port}${request.url}`)),
    );
    const asked: string[] = [];
    const { registry: clients } = registry({
      development: true,
      resolveHost: async (hostname) => {
        asked.push(hostname);
        return ["127.0.0.1"];
      },
    });
    const client = await clients.resolve(`http://client.test:${server.port}/client.json`);
    expect(client?.clientId).toBe(`http://client.test:${server.port}/client.json`);
    expect(asked).toEqual(["client.test"]);
    expect(server.requests[0]?.headers.host).toBe(`client.test:${server.port}`);
  });

  it.each([
    ["max-age=120", 120_000],
    ["public, max-age=7200", 7_200_000],
    ["max-age=1", 60_000],
    ["max-age=99999999", 24 * 60 * 60_000],
    ["no-store", 60_000],
    [undefined, 5 * 60_000],
  ])("keeps it as Cache-Control %s says, within bounds (%i ms)", async (cacheControl, ttlMs) => {
    const server = await serve((request, response) =>
      sendJson(
        response,
        documentFor(`http://127.0.0.1:${server.port}${request.url}`),
        cacheControl === undefined ? {} : { "cache-control": cacheControl },
      ),
    );
    const { registry: clients, raw } = registry({ development: true });
    expect(await clients.resolve(`${server.origin}/client.json`)).toBeDefined();
    const kept = [...raw.values].filter(([key]) => key.startsWith("auth:client-document:"));
    expect(kept.map(([, entry]) => entry.ttlMs)).toEqual([ttlMs]);
  });
});

describe("client ID metadata documents: refusals, each with a reason to show", () => {
  const dev = { development: true } as const;

  it.each([
    ["http://example.com/client.json", "not https"],
    ["https://example.com/client.json#top", "fragment"],
    ["https://user:pass@example.com/client.json", "credentials"],
    ["https://example.com", "no path"],
    ["https://example.com/", "no path"],
    ["https://example.com/a/../client.json", "normalized"],
    ["https://example.com/./client.json", "normalized"],
    ["https://EXAMPLE.com/client.json", "normalized"],
    ["https://example.com:443/client.json", "normalized"],
    [`https://example.com/${"a".repeat(2100)}`, "longer than"],
  ])("refuses the client_id %s before any fetch (%s)", async (clientId, why) => {
    const { registry: clients } = registry();
    const found = await clients.lookup(clientId);
    expect(found.client).toBeUndefined();
    expect(found.reason).toContain(why);
  });

  it.each([
    "127.0.0.1",
    "10.0.0.7",
    "169.254.169.254",
    "[::1]",
    "[::ffff:7f00:1]", // ::ffff:127.0.0.1, as a URL writes it
    "localhost",
  ])("refuses https://%s:<port>/… outside development, never connecting", async (host) => {
    const server = await serve((_request, response) => response.end());
    const { registry: clients } = registry();
    const found = await clients.lookup(`https://${host}:${server.port}/client.json`);
    expect(found.reason).toMatch(/non-public|loopback/);
    expect(server.connections).toBe(0);
  });

  it("refuses a name that resolves to a loopback or private address, and one where any address does", async () => {
    const answers: Record<string, string[]> = {
      "loopback.test": ["127.0.0.1"],
      "mixed.test": ["93.184.215.14", "10.1.2.3"],
      "mapped.test": ["::ffff:169.254.169.254"],
    };
    const { registry: clients } = registry({ resolveHost: async (hostname) => answers[hostname] ?? [] });
    for (const host of Object.keys(answers)) {
      expect((await clients.lookup(`https://${host}/client.json`)).reason).toContain("non-public");
    }
    expect((await clients.lookup("https://nowhere.test/client.json")).reason).toContain("does not resolve");
  });

  it("refuses a redirect, not following it (to a private address or anywhere)", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/client.json") {
        response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
      } else {
        sendJson(response, documentFor(`http://127.0.0.1:${server.port}/client.json`));
      }
    });
    const { registry: clients } = registry(dev);
    expect((await clients.lookup(`${server.origin}/client.json`)).reason).toContain("redirect (302)");
    expect(server.requests.map((request) => request.url)).toEqual(["/client.json"]);
  });

  it("stops reading a document past the size bound, declared or streamed", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/declared.json") {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000000" });
        response.write("{");
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      // Endless: the reader must stop, not the writer.
      const pump = () => {
        while (response.write(`"${"x".repeat(1000)}",`)) {
          if (response.destroyed) return;
        }
        response.once("drain", pump);
      };
      response.on("close", () => response.removeAllListeners("drain"));
      response.write("[");
      pump();
    });
    const { registry: clients } = registry(dev);
    expect((await clients.lookup(`${server.origin}/declared.json`)).reason).toContain("larger than 5120 bytes");
    expect((await clients.lookup(`${server.origin}/streamed.json`)).reason).toContain("larger than 5120 bytes");
  });

  it("gives up on a document that trickles in, at its time bound, and closes the connection", async () => {
    let closed: Promise<unknown> | undefined;
    const server = await serve((request, response) => {
      closed = once(request.socket, "close");
      response.writeHead(200, { "content-type": "application/json" });
      response.write("{");
    });
    const { registry: clients } = registry({ development: true, documentTimeoutMs: 200 });
    const found = await clients.lookup(`${server.origin}/client.json`);
    expect(found.reason).toContain("took too long");
    await closed;
    expect(server.sockets.size).toBe(0);
  });

  it("gives up on a host that never answers, at the time bound", async () => {
    const server = await serve(() => {});
    const { registry: clients } = registry({ development: true, documentTimeoutMs: 200 });
    expect((await clients.lookup(`${server.origin}/client.json`)).reason).toContain("took too long");
  });

  it.each([
    ["text/html", "<html>{}</html>", "content type is not JSON"],
    [undefined, "{}", "content type is not JSON"],
    ["application/json", "{not json", "not valid JSON"],
    ["application/json", "[1,2]", "not a JSON object"],
  ])("refuses a %s answer (%s)", async (type, body, why) => {
    const server = await serve((_request, response) => {
      response.writeHead(200, type === undefined ? {} : { "content-type": type });
      response.end(body);
    });
    const { registry: clients } = registry(dev);
    expect((await clients.lookup(`${server.origin}/client.json`)).reason).toContain(why);
  });

  it("refuses an answer other than 200", async () => {
    const server = await serve((_request, response) => response.writeHead(404).end());
    const { registry: clients } = registry(dev);
    expect((await clients.lookup(`${server.origin}/client.json`)).reason).toContain("HTTP 404");
  });

  it.each([
    [{ client_id: "https://elsewhere.example/client.json" }, "client_id is not the URL"],
    [{ redirect_uris: undefined }, "redirect_uris"],
    [{ redirect_uris: ["https://app.example/cb#frag"] }, "fragment"],
    [{ redirect_uris: ["javascript:alert(1)"] }, "not allowed"],
    [{ token_endpoint_auth_method: "private_key_jwt" }, "private_key_jwt is not supported"],
    [{ token_endpoint_auth_method: "client_secret_basic" }, "must be none"],
    [{ client_secret: "shh" }, "client_secret"],
    [{ grant_types: ["client_credentials"] }, "grant_types"],
  ])("refuses a document with %j", async (extra, why) => {
    const server = await serve((request, response) =>
      sendJson(response, documentFor(`http://127.0.0.1:${server.port}${request.url}`, extra)),
    );
    const { registry: clients } = registry(dev);
    const found = await clients.lookup(`${server.origin}/client.json`);
    expect(found.client).toBeUndefined();
    expect(found.reason).toContain(why);
  });

  it("never puts the fetched body in a reason", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("internal-metadata-credential-XYZ");
    });
    const { registry: clients } = registry(dev);
    const found = await clients.lookup(`${server.origin}/client.json`);
    expect(found.reason).not.toContain("XYZ");
  });

  it("keeps a refusal for a while, so a hostile URL costs one fetch per window", async () => {
    const server = await serve((_request, response) => response.writeHead(500).end());
    const { registry: clients } = registry(dev);
    await clients.lookup(`${server.origin}/client.json`);
    await clients.lookup(`${server.origin}/client.json`);
    expect(server.requests).toHaveLength(1);
  });

  it("bounds the documents fetched at once: one more is refused at once, and not kept", async () => {
    let arrived = 0;
    let allArrived: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const server = await serve((request, response) => {
      if (request.url === "/extra.json") {
        sendJson(response, documentFor(`http://127.0.0.1:${server.port}/extra.json`));
        return;
      }
      // The others hang until the test ends them.
      arrived += 1;
      if (arrived === MAX_FETCHES_AT_ONCE) allArrived();
    });
    const { registry: clients } = registry(dev);
    const pending = Array.from({ length: MAX_FETCHES_AT_ONCE }, (_, i) => clients.lookup(`${server.origin}/${i}.json`));
    await waiting;
    const extra = await clients.lookup(`${server.origin}/extra.json`);
    expect(extra.reason).toContain("too many documents");
    for (const socket of server.sockets) socket.destroy();
    const ended = await Promise.all(pending);
    expect(ended.every((found) => found.reason?.includes("could not be reached"))).toBe(true);
    expect((await clients.lookup(`${server.origin}/extra.json`)).client).toBeDefined();
  });

  it("accepts documents only from the hosts a trust policy names, and their subdomains", async () => {
    const server = await serve((request, response) =>
      sendJson(response, documentFor(`http://127.0.0.1:${server.port}${request.url}`)),
    );
    const trusting = registry({ development: true, documentHosts: ["127.0.0.1", "clients.example"] }).registry;
    expect((await trusting.lookup(`${server.origin}/client.json`)).client).toBeDefined();
    const strict = registry({ documentHosts: ["clients.example"], resolveHost: async () => [] }).registry;
    expect((await strict.lookup("https://evil.example/client.json")).reason).toContain("not one this server accepts");
    expect((await strict.lookup("https://clients.example.evil.example/c.json")).reason).toContain("not one");
    const below = await strict.lookup("https://app.clients.example/client.json");
    expect(below.reason).not.toContain("not one this server accepts");
    expect(server.requests).toHaveLength(1);
  });

  it("refuses URL client ids when metadata documents are off", async () => {
    const { registry: clients } = registry({ metadataDocuments: false });
    expect(clients.metadataDocuments).toBe(false);
    expect((await clients.lookup("https://app.example/client.json")).reason).toContain("does not accept");
  });
});
