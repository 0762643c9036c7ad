// A method's @use (use.ts) follows its definition, not the name it had when the class was set up: through renames,
// around its completions, never for a caller its guard refuses nor while disabled. Alone, mounted and nested, both
// eras; run in both decorator dialects (see dialect-suite.ts).

import { McpError, type Server } from "@toolsmith/core";
import { type Middleware, rateLimit } from "@toolsmith/core/middleware";
import { createTestClient } from "@toolsmith/core/testing";
import type { Servable } from "@toolsmith/core/transport";
import { McpServer, prompt, resource, tool, use } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

const adminOnly: Middleware = (operation, next) => {
  if (operation.ctx.auth?.scopes.includes("admin") !== true) throw new McpError(-32001, "for admins");
  return next();
};

class Vault extends McpServer {
  name = "vault";
  version = "1";

  @use(adminOnly)
  @tool({ description: "Admins only, by @use" })
  wipe() {
    return "wiped";
  }

  @use(adminOnly)
  @resource("vault://ledger", { description: "Admins only" })
  ledger() {
    return "the ledger";
  }

  @use(adminOnly)
  @resource("vault://files/{id}", { description: "Admins only", complete: { id: () => ["secret-file"] } })
  file() {
    return "a file";
  }

  @use(adminOnly)
  @prompt({ description: "Admins only", args: { topic: z.string() }, complete: { topic: () => ["secret-topic"] } })
  brief() {
    return "a brief";
  }

  @use(adminOnly)
  @tool({ description: "A tool and a prompt, admins only" })
  @prompt({ description: "A prompt and a tool, admins only" })
  both() {
    return "both";
  }

  @use(rateLimit({ capacity: 1, perSecond: 1, now: () => 0 }))
  @tool({ description: "Auditors only, once", guard: (ctx) => ctx.auth?.scopes.includes("audit") === true })
  audit() {
    return "audited";
  }
}

class VaultHost extends McpServer {
  name = "host";
  version = "1";
  constructor(vault: Vault) {
    super({ mount: { vmod: vault } });
  }
}

class VaultOuter extends McpServer {
  name = "outer";
  version = "1";
  constructor(vault: Vault) {
    super({ mount: { top: new VaultHost(vault) } });
  }
}

const MODES = [
  { mode: "alone", make: (vault: Vault): Servable => vault, prefix: "" },
  { mode: "mounted", make: (vault: Vault): Servable => new VaultHost(vault), prefix: "vmod." },
  { mode: "nested", make: (vault: Vault): Servable => new VaultOuter(vault), prefix: "top.vmod." },
] as const;

let callers = 0;

describe.each(
  MODES.flatMap((m) => (["2025-11-25", "2026-07-28"] as const).map((protocolVersion) => ({ ...m, protocolVersion }))),
)(
  `a method's @use follows its definition ($mode, $protocolVersion, ${DIALECT})`,
  ({ make, prefix, protocolVersion }) => {
    // The served server (what handles are taken from) and the Vault inside it; a caller of its own per connection.
    const setUp = () => {
      const vault = new Vault();
      const served = make(vault);
      const server: Server = "toServer" in served ? served.toServer() : served;
      const connect = (scopes: string[] = []) =>
        createTestClient(served, { protocolVersion, auth: { subject: `vault-caller-${++callers}`, scopes } });
      return { vault, server, connect };
    };

    it("renamed through its handle (update), a method's @use still runs, under the new name, URI or template", async () => {
      const { server, connect } = setUp();
      server.registered("tool", `${prefix}wipe`)?.update({ name: "wipe_all" });
      server.registered("prompt", `${prefix}brief`)?.update({ name: "briefing" });
      server.registered("resource", "vault://ledger")?.update({ uri: "vault://books" });
      server.registered("resourceTemplate", "vault://files/{id}")?.update({ uriTemplate: "vault://docs/{id}" });
      const c = await connect();
      await expect(c.callTool(`${prefix}wipe_all`)).rejects.toMatchObject({ code: -32001, message: "for admins" });
      await expect(c.getPrompt(`${prefix}briefing`, { topic: "x" })).rejects.toMatchObject({ code: -32001 });
      await expect(c.readResource("vault://books")).rejects.toMatchObject({ code: -32001 });
      await expect(c.readResource("vault://docs/7")).rejects.toMatchObject({ code: -32001 });
      const admin = await connect(["admin"]);
      expect(await admin.callTool(`${prefix}wipe_all`)).toMatchObject({ content: [{ text: "wiped" }] });
      expect(await admin.readResource("vault://docs/7")).toMatchObject({ contents: [{ text: "a file" }] });
    });

    it("removed, a method's @use does not pass to another definition that takes its name", async () => {
      const { vault, server, connect } = setUp();
      server.registered("tool", `${prefix}wipe`)?.remove();
      vault.toServer().tool({ name: "wipe", description: "Anyone's now", handler: () => "anyone's" });
      const c = await connect();
      expect(await c.callTool(`${prefix}wipe`)).toMatchObject({ content: [{ text: "anyone's" }] });
    });

    it("a method's @use runs around its prompt's and template's completions", async () => {
      const { connect } = setUp();
      const prompt = { type: "ref/prompt" as const, name: `${prefix}brief` };
      const template = { type: "ref/resource" as const, uri: "vault://files/{id}" };
      const c = await connect();
      await expect(c.complete(prompt, { name: "topic", value: "" })).rejects.toMatchObject({ code: -32001 });
      await expect(c.complete(template, { name: "id", value: "" })).rejects.toMatchObject({ code: -32001 });
      const admin = await connect(["admin"]);
      expect(await admin.complete(prompt, { name: "topic", value: "" })).toMatchObject({ values: ["secret-topic"] });
      expect(await admin.complete(template, { name: "id", value: "" })).toMatchObject({ values: ["secret-file"] });
    });

    it("on a method that is a tool and a prompt, @use runs around both", async () => {
      const { connect } = setUp();
      const c = await connect();
      await expect(c.callTool(`${prefix}both`)).rejects.toMatchObject({ code: -32001 });
      await expect(c.getPrompt(`${prefix}both`)).rejects.toMatchObject({ code: -32001 });
    });

    it("for a caller its guard refuses, or while it is disabled, a method's @use never runs: it is unknown", async () => {
      const { server, connect } = setUp();
      const c = await connect();
      // The rate limit would refuse the second call: it is never asked, the tool does not exist for this caller.
      for (const _ of [1, 2]) {
        await expect(c.callTool(`${prefix}audit`)).rejects.toMatchObject({
          code: -32602,
          message: `Unknown tool: ${prefix}audit`,
        });
      }
      const auditor = await connect(["audit"]);
      expect(await auditor.callTool(`${prefix}audit`)).toMatchObject({ content: [{ text: "audited" }] });
      await expect(auditor.callTool(`${prefix}audit`)).rejects.toMatchObject({ code: -32010 });
      server.registered("tool", `${prefix}wipe`)?.disable();
      await expect(c.callTool(`${prefix}wipe`)).rejects.toMatchObject({
        code: -32602,
        message: `Unknown tool: ${prefix}wipe`,
      });
    });
  },
);
