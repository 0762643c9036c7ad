import { describe, expect, it } from "vitest";
import { MetaKey } from "../transport.js";
import { connectLines } from "./connection.test-util.js";
import {
  errorReply,
  FIXTURE_CAPABILITIES,
  fixture,
  handshake,
  type Json,
  request,
  send,
  stateless,
} from "./fixture.test-util.js";

describe("which methods a revision has", () => {
  it("an unknown method → -32601 in both eras", async () => {
    const { server } = fixture();
    const session = await handshake(server);
    const unknown = (id: number, method: string) => errorReply(id, -32601, `Method not found: ${method}`);
    expect(await send(session, request(1, "tools/destroy"))).toEqual(unknown(1, "tools/destroy"));
    expect(await send(session, request(2, "__proto__"))).toEqual(unknown(2, "__proto__"));
    expect(await send(session, request(3, "constructor"))).toEqual(unknown(3, "constructor"));
    const modern = connectLines(server);
    expect(await send(modern, request(4, "tools/destroy", stateless()))).toEqual(unknown(4, "tools/destroy"));
    expect(await send(modern, request(5, "toString", stateless()))).toEqual(unknown(5, "toString"));
  });

  it("server/discover in a handshake session → -32601", async () => {
    const session = await handshake(fixture().server);
    const absent = "Method not found: server/discover (not part of protocol revision 2025-11-25)";
    expect(await send(session, request(1, "server/discover"))).toEqual(errorReply(1, -32601, absent));
    expect(await send(session, request(2, "server/discover", stateless()))).toEqual(errorReply(2, -32601, absent));
  });

  for (const method of ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]) {
    it(`${method} → -32601 in the stateless era`, async () => {
      const session = connectLines(fixture().server);
      await send(session, request(0, "tools/list", stateless()));
      expect(await send(session, request(1, method, stateless()))).toEqual(
        errorReply(1, -32601, `Method not found: ${method} (removed in protocol revision 2026-07-28)`),
      );
    });
  }
});

describe("method params", () => {
  it("bad params → -32602 in both eras", async () => {
    const { server } = fixture();
    const session = await handshake(server);
    const modern = connectLines(server);
    const bad: [string, Json][] = [
      ["tools/call", {}],
      ["tools/call", { name: 5 }],
      ["tools/call", { name: "echo", arguments: [] }],
      ["resources/read", { uri: 5 }],
      ["resources/read", {}],
      ["prompts/get", {}],
      ["prompts/get", { name: "greet", arguments: { person: 1 } }],
      ["tools/list", { cursor: 7 }],
    ];
    for (const [method, params] of bad) {
      expect(await send(session, request(1, method, params)), method).toEqual(errorReply(1, -32602));
      expect(await send(modern, request(2, method, stateless(params))), method).toEqual(errorReply(2, -32602));
    }
  });
});

describe("server/discover", () => {
  it("server/discover returns the documented shape", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "server/discover", stateless()))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        supportedVersions: expect.arrayContaining(["2026-07-28"]),
        capabilities: FIXTURE_CAPABILITIES,
        instructions: "Use echo to echo.",
        ttlMs: expect.any(Number),
        cacheScope: expect.stringMatching(/^(public|private)$/),
        resultType: "complete",
        _meta: { [MetaKey.serverInfo]: { name: "session-test", version: "1.2.3" } },
      },
    });
    expect(session.phase).toBe("operation");
    expect(session.negotiatedVersion).toBeUndefined();
  });

  it("server/discover lists the handshake versions the server also speaks", async () => {
    const reply = (await send(connectLines(fixture().server), request(1, "server/discover", stateless()))) as Json;
    expect((reply.result as Json).supportedVersions).toEqual(
      expect.arrayContaining(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]),
    );
  });
});
