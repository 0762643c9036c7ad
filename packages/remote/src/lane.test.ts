import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { createRemote, type RemoteOptions } from "./index.js";

// What the straight tools/call lane (lane.ts) must do as the official client does with the same remote: the
// gateway served over HTTP to the official client, the remote a real peer (the official SDK v2) or a hostile one.

const SDK_REMOTE = fileURLToPath(new URL("./sdk-remote.test-util.mjs", import.meta.url));

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function sdkOverHttp(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [SDK_REMOTE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  open.unshift({
    close: () => {
      child.kill();
      return exited;
    },
  });
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return line;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.push(client);
  return client;
}

async function gateway(options: RemoteOptions): Promise<Client> {
  const remote = await createRemote({ era: "legacy", backoff: { initialMs: 60_000 }, ...options });
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.setLogger(() => undefined);
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  return connect(http.url);
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text ?? "") as string;
}

describe("the lane speaks to a remote as the official client does", () => {
  it("a call whose event stream the remote closes before answering is resumed with Last-Event-ID", async () => {
    const url = await sdkOverHttp(["--stateful", "--resumable"]);
    // The official client itself comes back for the answer.
    expect(textOf(await (await connect(url)).callTool({ name: "poll", arguments: {} }))).toBe("polled");
    const client = await gateway({ url });
    const result = await client.callTool({ name: "r.poll", arguments: {} });
    expect(textOf(result)).toBe("polled");
    expect(result.isError).not.toBe(true);
  });
});
