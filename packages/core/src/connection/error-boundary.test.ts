import { describe, expect, it } from "vitest";
import type { ErrorReport } from "../index.js";
import { connectLines, replyTo } from "./connection.test-util.js";
import { fixture, handshake, request, send, stateless } from "./fixture.test-util.js";

describe("the error boundary: a request's throw is its one error reply", () => {
  for (const era of ["handshake", "stateless"]) {
    it(`${era}: a resource handler throwing a plain Error → -32603 "Internal error", no details, onError told`, async () => {
      const reports: { error: unknown; where: ErrorReport }[] = [];
      const { server } = fixture({ onError: (error, where) => reports.push({ error, where }) });
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const params = era === "handshake" ? { uri: "docs://broken" } : stateless({ uri: "docs://broken" });
      const line = await replyTo(session, JSON.stringify(request(77, "resources/read", params)));
      expect(JSON.parse(line ?? "null")).toEqual({
        jsonrpc: "2.0",
        id: 77,
        error: { code: -32603, message: "Internal error" },
      });
      expect(line).not.toContain("secret");
      expect(line).not.toContain("stack");
      expect(line).not.toMatch(/\bat \S+/);
      expect(reports).toHaveLength(1);
      expect((reports[0]?.error as Error | undefined)?.message).toBe("cannot open /srv/secret/db.sqlite");
      expect(reports[0]?.where).toMatchObject({ method: "resources/read", requestId: 77 });
    });
  }

  it("a failing onError hook does not take the reply down", async () => {
    const { server } = fixture({
      onError: () => {
        throw new Error("hook failed");
      },
    });
    const session = await handshake(server);
    expect(await send(session, request(1, "resources/read", { uri: "docs://broken" }))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error" },
    });
  });
});
