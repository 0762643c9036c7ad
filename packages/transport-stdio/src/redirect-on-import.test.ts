import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../scripts/child-processes.js";

// The fixtures import the built package (dist), as a user's server would.
const fixture = (name: string) => fileURLToPath(new URL(`../test/${name}`, import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/redirect-on-import.js", import.meta.url));

const clients: Client[] = [];

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error("build first: npx -y pnpm@12.4.2 build");
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** Spawn a fixture with the official client; `stderr()` closes the client and resolves with all the server wrote there. */
async function connect(script: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture(script)],
    env,
    stderr: "pipe",
  });
  let text = "";
  const stream = (transport.stderr as Readable).setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    text += chunk;
  });
  const ended = new Promise<string>((resolve) => stream.on("end", () => resolve(text)));
  const errors: Error[] = [];
  const client = new Client({ name: "redirect-test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  client.onerror = (error) => errors.push(error);
  clients.push(client);
  await client.connect(transport);
  const stderr = async () => {
    await client.close();
    return ended;
  };
  return { client, errors, stderr };
}

describe("stdout is redirected from the moment the package is imported", () => {
  for (const [what, env] of [
    ["serveStdio's own redirect on", {}],
    ["redirectStdout: false", { REDIRECT_STDOUT: "off" }],
  ] as const) {
    it(`sends a top-level console.log before serveStdio to stderr (${what})`, async () => {
      const { client, errors, stderr } = await connect("hello-at-top-level.mjs", env);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
      expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
        content: [{ type: "text", text: "hi" }],
      });
      const logged = await stderr();
      expect(logged).toContain("hello\n");
      expect(logged).toContain("hello from process.stdout.write\n");
      expect(errors).toEqual([]);
    });
  }

  it('redirects output of imports that run before ours with `import "@toolsmith/transport-stdio/redirect-stdout"` first', async () => {
    const { client, errors, stderr } = await connect("hello-before-import.mjs");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["ping_tool"]);
    expect(await stderr()).toContain("hello from an earlier import\n");
    expect(errors).toEqual([]);
  });
});

describe("releaseStdout", () => {
  it("gives stdout back to a program that imports the transport but does not serve it", async () => {
    const { code, stdout, stderr } = await run(process.execPath, [fixture("release-stdout.mjs")]);
    expect(code).toBe(0);
    expect(stdout).toBe("released\n");
    expect(stderr).toBe("redirected\n");
  });
});
