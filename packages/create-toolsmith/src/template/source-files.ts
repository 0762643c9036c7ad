import { className } from "../names.js";
import type { ProjectOptions } from "../options.js";
import { RESET_SCOPE } from "./sign-in-source.js";

export function serverSource(options: ProjectOptions): string {
  const imports = options.otel
    ? `import { type Args, McpServer, prompt, resource, tool, use } from "@toolsmith/decorators";
import { openTelemetry } from "@toolsmith/otel";
import { z } from "zod";
`
    : `import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";
`;
  // Without an SDK (tests, or src/tracing.ts not loaded) the middleware does nothing.
  const traced = options.otel
    ? "// A span per operation, through the OpenTelemetry SDK that src/tracing.ts sets up.\n@use(openTelemetry())\n"
    : "";
  return `${imports}
// Each schema is written once: the decorator validates with it, Args<typeof …> types the method's parameter.
const Greet = { name: z.string().min(1).describe("Who to greet") };
const Welcome = { name: z.string().describe("Who to welcome") };

/** The MCP server: one tool, one resource and one prompt, each a decorated method. */
${traced}export class ${className(options.name)} extends McpServer {
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
${options.auth === "none" ? "" : SCOPED_TOOL}}
`;
}

// With sign-in: a tool only a caller whose token holds its scope may call (a 403 over HTTP names the scope).
const SCOPED_TOOL = `
  @tool({ description: "Forget everyone greeted so far", scopes: [${JSON.stringify(RESET_SCOPE)}] })
  reset() {
    this.greeted = [];
    return "Forgotten.";
  }
`;

export function testSource(options: ProjectOptions): string {
  const server = className(options.name);
  const scoped = options.auth !== "none";
  const coreImports = scoped
    ? "type AuthInfo, ErrorCode, LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION"
    : "LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION";
  return `import { ${coreImports} } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
import { ${server} } from "./server.js";

// In memory: no transport, no process; once per protocol era, in the newest revision of each that core speaks.
const ERAS = [LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION];
${scoped ? PRINCIPALS : ""}
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
${scoped ? scopedTests(server) : ""}});
`;
}

// Callers as the HTTP transport gives them once their token is checked: a scoped tool is tested with no identity provider.
const PRINCIPALS = `
// Signed-in callers, as the HTTP transport hands them over once their token is checked: no identity provider here.
const resetter: AuthInfo = { subject: "ada", scopes: [${JSON.stringify(RESET_SCOPE)}] };
const reader: AuthInfo = { subject: "rob", scopes: [] };
`;

function scopedTests(server: string): string {
  return `
  it("resets for a caller whose token holds ${RESET_SCOPE}", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion, auth: resetter });
    await client.callTool("greet", { name: "Ada" });
    expect(await client.callTool("reset")).toMatchObject({ isError: false });
    const { contents } = await client.readResource("greetings://history");
    expect(contents[0]).toMatchObject({ text: "[]" });
  });

  it("refuses a caller without ${RESET_SCOPE}, naming the scope (HTTP: 403 insufficient_scope)", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion, auth: reader });
    await expect(client.callTool("reset")).rejects.toMatchObject({
      code: ErrorCode.InsufficientScope,
      data: { scopes: [${JSON.stringify(RESET_SCOPE)}] },
    });
  });

  it("lets a client without a principal, the local user as over stdio, hold every scope", async () => {
    const client = await createTestClient(new ${server}(), { protocolVersion });
    expect(await client.callTool("reset")).toMatchObject({ isError: false });
  });
`;
}
