// @tool({ ui }): an MCP App declared in one option (the ui:// resource, the tool's link, the extension).
// Run in both decorator dialects (see dialect-suite.ts).
import type { RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

const MIME = "text/html;profile=mcp-app";
const board = { uri: "ui://board/view.html", html: "<!doctype html><p>board</p>", prefersBorder: false } as const;

class Board extends McpServer {
  name = "board";
  version = "1";
  readonly scores = new Map<string, number>();

  @tool({ description: "Show the board", ui: board })
  show() {
    return { scores: Object.fromEntries(this.scores) };
  }

  @tool({ description: "Score a point", input: { team: z.string() }, ui: { ...board, visibility: ["app"] } })
  score({ team }: { team: string }) {
    this.scores.set(team, (this.scores.get(team) ?? 0) + 1);
    return { team, score: this.scores.get(team) };
  }

  @tool({ description: "Referee's view", guard: "isReferee", ui: { html: (ctx) => `<p>${ctx.auth?.subject}</p>` } })
  referee() {
    return "ok";
  }

  isReferee(ctx: RequestContext) {
    return ctx.auth?.subject === "ref";
  }
}

describe(`@tool({ ui }) (${DIALECT})`, () => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`declares the extension, serves one shared app and links it from each tool (${protocolVersion})`, async () => {
      const client = await createTestClient(new Board(), { protocolVersion, auth: { subject: "ref", scopes: [] } });
      expect(client.serverResult.capabilities).toMatchObject({
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } },
      });
      const links = Object.fromEntries((await client.listTools()).map((one) => [one.name, one._meta?.ui]));
      expect(links).toEqual({
        show: { resourceUri: board.uri },
        score: { resourceUri: board.uri, visibility: ["app"] },
        referee: { resourceUri: "ui://referee/app.html" },
      });
      expect((await client.listResources()).map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
        { uri: board.uri, mimeType: MIME },
        { uri: "ui://referee/app.html", mimeType: MIME },
      ]);
      const { contents } = await client.readResource(board.uri);
      expect(contents).toEqual([
        { uri: board.uri, mimeType: MIME, text: board.html, _meta: { ui: { prefersBorder: false } } },
      ]);
      expect((await client.readResource("ui://referee/app.html")).contents[0]).toMatchObject({ text: "<p>ref</p>" });
    });

    it(`a caller the tool's guard (a method's name) refuses does not see its app (${protocolVersion})`, async () => {
      const client = await createTestClient(new Board(), { protocolVersion, auth: { subject: "fan", scopes: [] } });
      expect((await client.listResources()).map((one) => one.uri)).toEqual([board.uri]);
      await expect(client.readResource("ui://referee/app.html")).rejects.toThrow("Resource not found");
    });
  }

  it("disabling a guarded app tool hides its app and tells only whom the guard (a method's name) allows", async () => {
    const server = new Board().toServer();
    const referee = await (await createTestClient(server, { auth: { subject: "ref", scopes: [] } })).listen({
      resourcesListChanged: true,
    });
    const fan = await (await createTestClient(server, { auth: { subject: "fan", scopes: [] } })).listen({
      resourcesListChanged: true,
    });
    // List changes are told once the current task's changes are made: one turn of the event loop later.
    const told = async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      return [referee, fan].map((stream) => stream.notifications.map((one) => one.method));
    };
    server.registered("tool", "referee")?.disable();
    expect(await told()).toEqual([["notifications/resources/list_changed"], []]);
    const asReferee = await createTestClient(server, { auth: { subject: "ref", scopes: [] } });
    await expect(asReferee.readResource("ui://referee/app.html")).rejects.toThrow("Resource not found");
  });
});
