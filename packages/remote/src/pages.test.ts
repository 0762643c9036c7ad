import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type Server } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { createRemote } from "./index.js";

// A remote that lists one tool per page: the gateway walks the pages itself, one request each, so a long list is
// listed whole (client 2.4.0's own walk stops at 64 pages) and `maxItems` is checked as the pages come (the client's
// walk held every page first: a remote paging without end made the gateway hold hundreds of MB).

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** A remote of `count` tools, one per page, counting the tools/list requests it serves. */
async function pagedRemote(count: number): Promise<{ url: string; lists: () => number }> {
  let lists = 0;
  const remote: Server = createServer({ name: "paged", version: "1.0.0", pageSize: 1 });
  remote.use((operation, next) => {
    if (operation.method === "tools/list") lists += 1;
    return next();
  });
  for (let n = 0; n < count; n++) remote.tool({ name: `t${n}`, description: `Tool ${n}`, handler: () => `${n}` });
  const http = await listen(remote, { port: 0, log: null });
  open.push(http);
  return { url: http.url, lists: () => lists };
}

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("a remote that pages its tools (%s)", (_name, era) => {
  it("is listed whole past 64 pages, and each tool is called", async () => {
    const { url } = await pagedRemote(100);
    const remote = await createRemote({ url, era });
    open.push(remote);
    const app = createServer({ name: "gateway", version: "1.0.0" }).mount("r", remote.server);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: era } });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    open.push(client);
    const { tools } = await client.listTools(undefined, { cacheMode: "refresh" });
    expect(tools).toHaveLength(100);
    expect(await client.callTool({ name: "r.t99", arguments: {} })).toMatchObject({ content: [{ text: "99" }] });
  });

  it("stops reading pages once they bring more than maxItems", async () => {
    const { url, lists } = await pagedRemote(200);
    const remote = await createRemote({ url, era, maxItems: 10 });
    open.push(remote);
    const before = lists();
    await expect(remote.refresh()).rejects.toThrow(/lists more than 10 tools/);
    // The 11th page is the one past the bound: nothing after it is asked.
    expect(lists() - before).toBe(11);
  });
});
