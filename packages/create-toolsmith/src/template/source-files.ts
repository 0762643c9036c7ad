import { className } from "../names.js";
import type { ProjectOptions } from "../options.js";

export function serverSource(options: ProjectOptions): string {
  return `import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";

// Each schema is written once: the decorator validates with it, Args<typeof …> types the method's parameter.
const Greet = { name: z.string().min(1).describe("Who to greet") };
const Welcome = { name: z.string().describe("Who to welcome") };

/** The MCP server: one tool, one resource and one prompt, each a decorated method. */
export class ${className(options.name)} extends McpServer {
  name = ${JSON.stringify(options.name)};
  version = "0.1.0";
  greeted: string[] = [];

  @tool({ description: "Greet someone by name", input: Greet })
  greet({ name }: Args<typeof Greet>) {
    this.greeted.push(name);
    return \`Hello, \${name}!\`;
  }

  @resource("greetings://history", { description: "Everyone greeted so far", mimeType: "application/json" })
  history() {
    return JSON.stringify(this.greeted);
  }

  @prompt({ description: "Ask for a welcome message", args: Welcome })
  welcome({ name }: Args<typeof Welcome>) {
    return \`Write a short, friendly welcome message for \${name}.\`;
  }
}
`;
}

export function mainSource(options: ProjectOptions): string {
  const server = className(options.name);
  if (options.transport === "stdio") {
    return `#!/usr/bin/env node
import { serveStdio } from "@toolsmith/transport-stdio";
import { ${server} } from "./server.js";

// stdio: a host starts this process and speaks JSON-RPC on stdin/stdout (log to stderr only).
serveStdio(new ${server}());
`;
  }
  if (options.transport === "http") {
    return `#!/usr/bin/env node
import { listen } from "@toolsmith/transport-http";
import { ${server} } from "./server.js";

// Streamable HTTP at http://127.0.0.1:$PORT/mcp (PORT defaults to 3000), said on stderr.
await listen(new ${server}());
`;
  }
  return `#!/usr/bin/env node
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { ${server} } from "./server.js";

const server = new ${server}();
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (PORT defaults to 3000), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
`;
}

export function testSource(options: ProjectOptions): string {
  const server = className(options.name);
  return `import { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
import { ${server} } from "./server.js";

// In memory: no transport, no process; once per protocol era, in the newest revision of each that core speaks.
const ERAS = [LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION];

describe.each(ERAS)("${server} (%s)", (protocolVersion) => {
  // toContain, not toEqual: what \`toolsmith add\` adds later does not turn this test red.
  it("lists its tool, resource and prompt", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion });
    expect((await client.listTools()).map((tool) => tool.name)).toContain("greet");
    expect((await client.listResources()).map((resource) => resource.uri)).toContain("greetings://history");
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toContain("welcome");
  });

  it("greets, and remembers who", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion });
    expect(await client.callTool("greet", { name: "Ada" })).toMatchObject({
      isError: false,
      content: [{ type: "text", text: "Hello, Ada!" }],
    });
    const { contents } = await client.readResource("greetings://history");
    expect(contents[0]).toMatchObject({ text: '["Ada"]' });
  });

  it("answers bad arguments with an error the model can read", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion });
    expect(await client.callTool("greet", { name: "" })).toMatchObject({ isError: true });
  });

  it("fills in its prompt", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion });
    const { messages } = await client.getPrompt("welcome", { name: "Ada" });
    expect(messages[0]?.content).toMatchObject({ text: expect.stringContaining("Ada") });
  });
});
`;
}
