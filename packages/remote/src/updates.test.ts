import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { createRemote } from "./index.js";

// The remote's resource updates: a URI is subscribed on the remote (observed there by its resources' watch) while a
// client of the gateway is subscribed to it, and each update reaches only the gateway's clients subscribed to it.
// A Toolsmith remote over HTTP and the gateway's callers (the official client over HTTP), each in either era.

const SDK_REMOTE = fileURLToPath(new URL("./sdk-remote.test-util.mjs", import.meta.url));

type Era = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Era][] = [
  ["handshake era", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];
const UPDATED = "notifications/resources/updated";

const open: { close(): Promise<unknown> | unknown }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function remoteServer(port = 0) {
  const events: string[] = [];
  const watch = (uri: string) => {
    events.push(`watch ${uri}`);
    return () => void events.push(`stop ${uri}`);
  };
  const app = createServer({ name: "board-remote", version: "1.0.0" });
  app.resource({ uri: "board://today", watch, handler: () => "today's board" });
  app.resource({ uriTemplate: "notes://{id}", watch, handler: ({ id }) => `note ${id}` });
  const http = await listen(app, { port, log: null });
  open.push(http);
  return { app, http, events };
}

async function gateway(url: string, remoteEra: Era) {
  const remote = await createRemote({ url, era: remoteEra });
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  return { remote, http };
}

interface Caller {
  client: Client;
  transport: StreamableHTTPClientTransport;
  heard: string[];
  subscribe(uri: string): Promise<() => Promise<unknown>>;
}

async function caller(url: string, era: Era): Promise<Caller> {
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: era } });
  const heard: string[] = [];
  client.setNotificationHandler(UPDATED, (n) => void heard.push(n.params.uri));
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  open.push(client);
  const subscribe = async (uri: string) => {
    if (era === "legacy") {
      await client.subscribeResource({ uri });
      return () => client.unsubscribeResource({ uri });
    }
    const stream = await client.listen({ resourceSubscriptions: [uri] });
    return () => stream.close();
  };
  return { client, transport, heard, subscribe };
}

describe.each(ERAS)("the remote's resource updates, remote in the %s", (_, remoteEra) => {
  describe.each(ERAS)("callers in the %s", (__, era) => {
    it("subscribes on the remote while a caller is subscribed; only that caller hears the updates", async () => {
      const remote = await remoteServer();
      const { http } = await gateway(remote.http.url, remoteEra);
      const a = await caller(http.url, era);
      const b = await caller(http.url, era);
      const stopA = await a.subscribe("board://today");
      await until(() => remote.events.includes("watch board://today"), "the remote subscribed");
      const stopB = await b.subscribe("notes://2");
      await until(() => remote.events.includes("watch notes://2"), "the remote subscribed notes://2");

      remote.app.resourceUpdated("board://today");
      remote.app.resourceUpdated("notes://2");
      await until(() => a.heard.length === 1 && b.heard.length === 1, "both callers told");
      expect(a.heard).toEqual(["board://today"]);
      expect(b.heard).toEqual(["notes://2"]);

      await stopA();
      await until(() => remote.events.includes("stop board://today"), "the remote unsubscribed");
      // Not subscribed any more, so not told; a's next word proves the gateway sent nothing before it.
      remote.app.resourceUpdated("board://today");
      await a.subscribe("notes://2");
      remote.app.resourceUpdated("notes://2");
      await until(() => a.heard.length === 2 && b.heard.length === 2, "both told of notes://2");
      expect(a.heard).toEqual(["board://today", "notes://2"]);
      expect(remote.events.filter((e) => e === "watch notes://2")).toHaveLength(1);
      await stopB();
    });
  });
});

describe.each(ERAS)("the remote's subscriptions, remote in the %s", (_, remoteEra) => {
  it("two callers of one URI make one subscription on the remote, ended when the last unsubscribes", async () => {
    const remote = await remoteServer();
    const { http } = await gateway(remote.http.url, remoteEra);
    const a = await caller(http.url, "legacy");
    const b = await caller(http.url, { pin: "2026-07-28" });
    const stopA = await a.subscribe("notes://1");
    const stopB = await b.subscribe("notes://1");
    await until(() => remote.events.includes("watch notes://1"), "the remote subscribed");
    await stopA();
    remote.app.resourceUpdated("notes://1");
    await until(() => b.heard.length === 1, "b told");
    expect(a.heard).toEqual([]);
    await stopB();
    await until(() => remote.events.includes("stop notes://1"), "the remote unsubscribed");
    expect(remote.events).toEqual(["watch notes://1", "stop notes://1"]);
  });

  it("subscribed, unsubscribed and subscribed again, the remote ends subscribed", async () => {
    const remote = await remoteServer();
    const { http } = await gateway(remote.http.url, remoteEra);
    const a = await caller(http.url, "legacy");
    await a.client.readResource({ uri: "board://today" });
    await a.subscribe("board://today");
    await a.client.unsubscribeResource({ uri: "board://today" });
    await a.subscribe("board://today");
    await until(() => remote.events.length === 3, "subscribed, unsubscribed, subscribed");
    expect(remote.events).toEqual(["watch board://today", "stop board://today", "watch board://today"]);
    remote.app.resourceUpdated("board://today");
    await until(() => a.heard.length === 1, "a told");
  });

  it("a resource its guard hides from the caller is not subscribed on the remote for it, and its updates not told", async () => {
    const remote = await remoteServer();
    const created = await createRemote({
      url: remote.http.url,
      era: remoteEra,
      resource: (item) => ("uri" in item && item.uri === "board://today" ? { guard: () => false } : undefined),
    });
    open.push(created);
    const app = createServer({ name: "gateway", version: "1.0.0" });
    app.mount("r", created.server);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const a = await caller(http.url, "legacy");
    await a.subscribe("board://today");
    await a.subscribe("notes://1");
    await until(() => remote.events.includes("watch notes://1"), "notes://1 subscribed");
    expect(remote.events).toEqual(["watch notes://1"]);
    remote.app.resourceUpdated("board://today");
    remote.app.resourceUpdated("notes://1");
    await until(() => a.heard.length === 1, "a told of notes://1");
    expect(a.heard).toEqual(["notes://1"]);
  });

  it("a caller that goes without unsubscribing (its session ended, its stream closed) ends the remote's subscription", async () => {
    const remote = await remoteServer();
    const { http } = await gateway(remote.http.url, remoteEra);
    const a = await caller(http.url, "legacy");
    const b = await caller(http.url, { pin: "2026-07-28" });
    await a.subscribe("notes://1");
    await b.subscribe("notes://2");
    await until(() => remote.events.length === 2, "the remote subscribed both");
    await a.transport.terminateSession();
    await until(() => remote.events.includes("stop notes://1"), "notes://1 unsubscribed");
    await b.client.close();
    await until(() => remote.events.includes("stop notes://2"), "notes://2 unsubscribed");
  });

  it("a remote that went away and came back is subscribed again, and its updates heard", async () => {
    const first = await remoteServer();
    const port = Number(new URL(first.http.url).port);
    const { http } = await gateway(first.http.url, remoteEra);
    const a = await caller(http.url, "legacy");
    await a.subscribe("board://today");
    await until(() => first.events.includes("watch board://today"), "the remote subscribed");
    await first.http.close();
    const second = await remoteServer(port);
    // By itself, with no use of the remote in between: the standalone stream (handshake era) or the listen stream
    // (2026-07-28) that carried the updates ended, and the gateway connects again.
    await until(() => second.events.includes("watch board://today"), "the remote subscribed again", 30_000);
    second.app.resourceUpdated("board://today");
    await until(() => a.heard.length === 1, "a told");
    expect(a.heard).toEqual(["board://today"]);
  });

  it("subscribes at most maxSubscriptions URIs on the remote, and says so in the log", async () => {
    const remote = await remoteServer();
    const created = await createRemote({ url: remote.http.url, era: remoteEra, maxSubscriptions: 2 });
    open.push(created);
    const app = createServer({ name: "gateway", version: "1.0.0" });
    const logged: string[] = [];
    app.setLogger((entry) => void logged.push(entry.message));
    app.mount("r", created.server);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const a = await caller(http.url, "legacy");
    for (const id of [1, 2, 3]) await a.subscribe(`notes://${id}`);
    await until(() => remote.events.length === 2, "two subscribed");
    expect(remote.events).toEqual(["watch notes://1", "watch notes://2"]);
    expect(logged.filter((m) => m.includes("not subscribed there"))).toHaveLength(1);
  });
});

describe.each(ERAS)("the official SDK v2 as the remote on stdio, in the %s", (_, remoteEra) => {
  it("is subscribed while a caller is, and its updates reach that caller only", async () => {
    const remote = await createRemote({ command: process.execPath, args: [SDK_REMOTE, "--subscribe"], era: remoteEra });
    open.push(remote);
    const app = createServer({ name: "gateway", version: "1.0.0" });
    app.mount("r", remote.server);
    const http = await listen(app, { port: 0, log: null });
    open.push(http);
    const a = await caller(http.url, "legacy");
    const b = await caller(http.url, { pin: "2026-07-28" });
    const text = async (name: string, args: Record<string, unknown> = {}) =>
      ((await a.client.callTool({ name, arguments: args })).content as { text: string }[])[0]?.text;
    const stopA = await a.subscribe("info://about");
    await b.subscribe("item://beta");
    if (remoteEra === "legacy") {
      await until(async () => (await text("r.subscribed")) === "info://about item://beta", "the SDK remote subscribed");
    }
    await text("r.touch", { uri: "info://about" });
    await text("r.touch", { uri: "item://beta" });
    await until(() => a.heard.length === 1 && b.heard.length === 1, "both told");
    expect(a.heard).toEqual(["info://about"]);
    expect(b.heard).toEqual(["item://beta"]);
    await stopA();
    if (remoteEra === "legacy") {
      await until(async () => (await text("r.subscribed")) === "item://beta", "the SDK remote unsubscribed");
    }
  });

  // The handshake era's resources/subscribe is what the remote can journal (a 2026-07-28 remote is told on a stream).
  it.runIf(remoteEra === "legacy")(
    "a remote process that dies is started again by itself and its URIs subscribed there, with no use between",
    async () => {
      const journal = join(mkdtempSync(join(tmpdir(), "toolsmith-updates-")), "journal");
      writeFileSync(journal, "");
      const subscribes = () =>
        readFileSync(journal, "utf8")
          .split("\n")
          .filter((line) => line.endsWith(" subscribe info://about"))
          .map((line) => Number(line.split(" ")[0]));
      const remote = await createRemote({
        command: process.execPath,
        args: [SDK_REMOTE, "--subscribe", "--journal", journal],
        era: remoteEra,
      });
      open.push(remote);
      const app = createServer({ name: "gateway", version: "1.0.0" });
      app.mount("r", remote.server);
      const http = await listen(app, { port: 0, log: null });
      open.push(http);
      const a = await caller(http.url, "legacy");
      await a.subscribe("info://about");
      const [first] = await until(() => (subscribes().length === 1 ? subscribes() : undefined), "subscribed once");
      process.kill(first as number, "SIGKILL");
      const [, second] = await until(
        () => (subscribes().length === 2 ? subscribes() : undefined),
        "subscribed again on a new process",
        30_000,
      );
      expect(second).not.toBe(first);
      // Its updates reach the caller again.
      await a.client.callTool({ name: "r.touch", arguments: { uri: "info://about" } });
      await until(() => a.heard.length === 1, "told");
      expect(a.heard).toEqual(["info://about"]);
    },
  );
});
