import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { ERAS } from "../../transports/src/peer.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";

// A server written with decorators (src/decorated-server.ts), compiled by Bun and Deno themselves in both dialects,
// driven over stdio by the official client in both eras. Plain definitions (the built JS) are the shared suite's.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SERVER = here("decorated-server.ts");
const LEGACY: Record<(typeof RUNTIME_NAMES)[number], string[]> = {
  bun: [`--tsconfig-override=${here("../tsconfig.legacy.json")}`],
  deno: ["--config", here("../deno.legacy.json")],
};
// Deno says this of experimentalDecorators on stderr, once per process.
const DENO_LEGACY_WARNING = /^.*experimentalDecorators compiler option is deprecated.*\n/m;

describe.each(RUNTIME_NAMES)("decorators on %s", (name) => {
  const target = runtime(name);
  describe.each(["tc39", "legacy"] as const)("%s", (dialect) => {
    it.each(ERAS)("serves every decorated method, %s", async (_era, mode) => {
      const flags = dialect === "legacy" ? LEGACY[name] : [];
      const transport = new StdioClientTransport({
        command: target.command,
        args: target.args(SERVER, [], flags),
        env: target.env(),
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const client = new Client({ name: "decorators", version: "1.0.0" }, { versionNegotiation: { mode } });
      try {
        await client.connect(transport);
        expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["add", "count"]);
        expect((await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).structuredContent).toEqual({
          sum: 5,
        });
        // `this` is the instance serving the call.
        expect((await client.callTool({ name: "count", arguments: {} })).content).toEqual([
          { type: "text", text: "1 calls" },
        ]);
        expect((await client.readResource({ uri: "decorated://7" })).contents).toEqual([
          { uri: "decorated://7", mimeType: "text/plain", text: "item 7" },
        ]);
        expect((await client.getPrompt({ name: "greet", arguments: { name: "Ada" } })).messages[0]?.content).toEqual({
          type: "text",
          text: "Hello, Ada.",
        });
      } finally {
        await client.close();
      }
      expect(stderr.replace(DENO_LEGACY_WARNING, "")).toBe(`dialect ${dialect}\n`);
    });
  });
});
