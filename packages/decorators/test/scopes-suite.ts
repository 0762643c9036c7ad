// `scopes` in @tool, @resource and @prompt options, and a server class's own (docs/decisions/0008-scopes.md): each
// method's operation refuses a principal short of a scope; the test client without `auth` holds every one. Run in
// both decorator dialects (see dialect-suite.ts).

import { type AuthInfo, ErrorCode, McpError } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

class Files extends McpServer {
  name = "files";
  version = "1";

  constructor() {
    super({ scopes: ["mcp"], impliedScopes: { "files:admin": ["files:write", "files:read"] } });
  }

  @tool({ description: "Write a file", scopes: ["files:write"], input: { path: z.string() } })
  write({ path }: { path: string }) {
    return `wrote ${path}`;
  }

  @resource("files://index", { description: "The index", scopes: ["files:read"] })
  index() {
    return "index";
  }

  @resource("files://{name}", { description: "One file", scopes: ["files:read"], complete: { name: "names" } })
  file({ name }: { name: string }) {
    return `file ${name}`;
  }

  names() {
    return ["a"];
  }

  @prompt({ description: "Review", scopes: ["review"], args: { topic: z.string() } })
  review({ topic }: { topic: string }) {
    return `review ${topic}`;
  }
}

const as = (scopes: string[]): AuthInfo => ({ subject: "s", scopes });

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return { code: (error as McpError).code, data: (error as McpError).data };
  }
  throw new Error("expected a refusal");
}

const needs = (...scopes: string[]) => ({ code: ErrorCode.InsufficientScope, data: { scopes } });

describe.each(["2025-11-25", "2026-07-28"] as const)(
  `scopes in decorator options (${DIALECT}, %s)`,
  (protocolVersion) => {
    it("each decorated operation needs its scopes and the class's own; the principal holds exactly its own", async () => {
      const client = await createTestClient(new Files(), { protocolVersion, auth: as(["mcp"]) });
      expect(await refusal(client.callTool("write", { path: "a" }))).toEqual(needs("mcp", "files:write"));
      expect(await refusal(client.readResource("files://index"))).toEqual(needs("mcp", "files:read"));
      expect(await refusal(client.readResource("files://b"))).toEqual(needs("mcp", "files:read"));
      const completion = client.complete({ type: "ref/resource", uri: "files://{name}" }, { name: "name", value: "" });
      expect(await refusal(completion)).toEqual(needs("mcp", "files:read"));
      expect(await refusal(client.getPrompt("review", { topic: "t" }))).toEqual(needs("mcp", "review"));
      // Listed all the same.
      expect((await client.listTools()).map((listed) => listed.name)).toEqual(["write"]);
    });

    it("a broad scope the class declares implies the narrower ones", async () => {
      const client = await createTestClient(new Files(), { protocolVersion, auth: as(["mcp", "files:admin"]) });
      expect(await client.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "wrote a" }] });
      expect(await client.readResource("files://b")).toMatchObject({ contents: [{ text: "file b" }] });
    });

    it("the test client without auth holds every scope, as stdio's local user does", async () => {
      const client = await createTestClient(new Files(), { protocolVersion });
      expect(await client.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "wrote a" }] });
      expect(await client.getPrompt("review", { topic: "t" })).toMatchObject({ messages: [{}] });
    });

    it("a scope that is no RFC 6749 scope token fails as the decorator runs, naming the method", () => {
      const define = () => {
        class Bad extends McpServer {
          @tool({ description: "Bad", scopes: ["two words"] })
          bad() {
            return 1;
          }
        }
        return Bad;
      };
      expect(define).toThrow(/^@tool on (Bad\.)?bad: Tool "bad" scope "two words" is invalid/);
    });
  },
);
