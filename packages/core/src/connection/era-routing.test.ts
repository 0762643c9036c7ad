import { describe, expect, it } from "vitest";
import { createServer } from "../index.js";
import { type Era, eraOf } from "../protocol/era.js";
import { MetaKey } from "../transport.js";
import { connectLines, replyTo } from "./connection.test-util.js";
import {
  CLIENT,
  errorReply,
  FIXTURE_CAPABILITIES,
  fixture,
  HANDSHAKE,
  handshake,
  initializeParams,
  type Json,
  notification,
  request,
  send,
  stateless,
} from "./fixture.test-util.js";

const NO_META = /a client of an earlier revision must send initialize first/;
const INITIALIZED = "Invalid request: this connection is already initialized";
const BAD_META = /^Invalid params\._meta: /;

describe("handshake era", () => {
  it("a request before initialize without _meta → -32602, and the connection lives on", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list"))).toEqual(errorReply(1, -32602, NO_META));
    expect(await send(session, request(2, "tools/call", { name: "echo", arguments: { text: "x" } }))).toEqual(
      errorReply(2, -32602, NO_META),
    );
    const init = (await send(session, request(3, "initialize", initializeParams("2025-06-18")))) as Json;
    expect(init.result).toMatchObject({ protocolVersion: "2025-06-18" });
    await send(session, notification("notifications/initialized"));
    expect(await send(session, request(4, "tools/list"))).toMatchObject({
      id: 4,
      result: { tools: expect.any(Array) },
    });
  });

  it("ping before initialize → {}", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(session.phase).toBe("initialization");
  });

  for (const version of HANDSHAKE) {
    it(`initialize with ${version} echoes it`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(session, request(1, "initialize", initializeParams(version)))) as Json;
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: version } });
      expect(session.negotiatedVersion).toBe(version);
    });
  }

  for (const version of ["2024-01-01", "2026-07-28", "not-a-version"]) {
    it(`initialize with ${version} is answered with 2025-11-25`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(session, request(1, "initialize", initializeParams(version)))) as Json;
      expect(reply).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
    });
  }

  it("the initialize result: version, registered capabilities, serverInfo, instructions", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "initialize", initializeParams("2025-11-25")))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: FIXTURE_CAPABILITIES,
        serverInfo: { name: "session-test", version: "1.2.3" },
        instructions: "Use echo to echo.",
      },
    });
  });

  it("capabilities in initialize follow what is registered", async () => {
    const toolsOnly = createServer({ name: "t", version: "1" });
    toolsOnly.tool({ name: "x", description: "d", handler: () => 1 });
    const reply = (await send(
      connectLines(toolsOnly),
      request(1, "initialize", initializeParams("2025-11-25")),
    )) as Json;
    expect((reply.result as Json).capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
    const empty = createServer({ name: "e", version: "1" });
    const emptyReply = (await send(
      connectLines(empty),
      request(1, "initialize", initializeParams("2025-11-25")),
    )) as Json;
    // Logging is always there: any handler may log through ctx.log.
    expect((emptyReply.result as Json).capabilities).toEqual({ logging: {} });
    expect(emptyReply.result).not.toHaveProperty("instructions");
  });

  it("a second initialize → -32600, before and after notifications/initialized", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "initialize", initializeParams("2025-11-25")));
    expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toEqual(
      errorReply(2, -32600, INITIALIZED),
    );
    await send(session, notification("notifications/initialized"));
    expect(await send(session, request(3, "initialize", initializeParams("2025-06-18")))).toEqual(
      errorReply(3, -32600, INITIALIZED),
    );
    expect(session.negotiatedVersion).toBe("2025-11-25");
  });

  const EXPECTED = "Invalid input: expected";
  for (const [label, params, issues] of [
    [
      "clientInfo missing",
      { protocolVersion: "2025-11-25", capabilities: {} },
      `clientInfo: ${EXPECTED} object, received undefined`,
    ],
    [
      "clientInfo without version",
      { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c" } },
      `clientInfo.version: ${EXPECTED} string, received undefined`,
    ],
    [
      "protocolVersion missing",
      { capabilities: {}, clientInfo: CLIENT },
      `protocolVersion: ${EXPECTED} string, received undefined`,
    ],
    ["capabilities missing", { protocolVersion: "2025-11-25", clientInfo: CLIENT }, "capabilities: expected an object"],
  ] as [string, Json, string][]) {
    it(`initialize with ${label} → -32602 naming what is wrong, and a correct initialize still works`, async () => {
      const session = connectLines(fixture().server);
      expect(await send(session, request(1, "initialize", params))).toEqual(
        errorReply(1, -32602, `Invalid initialize params: ${issues}`),
      );
      expect(await send(session, request(1, "initialize"))).toEqual(
        errorReply(
          1,
          -32602,
          `Invalid initialize params: protocolVersion: ${EXPECTED} string, received undefined; capabilities: expected an object; clientInfo: ${EXPECTED} object, received undefined`,
        ),
      );
      expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toMatchObject({
        id: 2,
        result: { protocolVersion: "2025-11-25" },
      });
    });
  }

  it('phase is "initialization" until notifications/initialized, then "operation"', async () => {
    const session = connectLines(fixture().server);
    expect(session.phase).toBe("initialization");
    await send(session, notification("notifications/initialized"));
    expect(session.phase).toBe("initialization");
    await send(session, request(1, "initialize", initializeParams("2025-11-25")));
    expect(session.phase).toBe("initialization");
    await send(session, notification("notifications/initialized"));
    expect(session.phase).toBe("operation");
  });

  it("the handler sees the negotiated version and the client's identity", async () => {
    const session = await handshake(fixture().server, "2025-06-18");
    const reply = (await send(session, request(1, "tools/call", { name: "who" }))) as Json;
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: CLIENT, version: "2025-06-18" });
  });

  it("initialize inside a 2025-03-26 batch → an error for that entry", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    const replies = (await send(session, [
      request(9, "initialize", initializeParams("2025-03-26")),
      request(10, "ping"),
    ])) as Json[];
    expect(replies).toHaveLength(2);
    expect(replies[0]).toEqual(errorReply(9, -32600, INITIALIZED));
    expect(replies[1]).toEqual({ jsonrpc: "2.0", id: 10, result: {} });
  });
});

describe("stateless era, and falling back to initialize", () => {
  it("initialize after stateless requests selects the handshake era (a client falling back), once", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "tools/list", stateless()));
    expect(await send(session, request(2, "initialize", initializeParams("2025-06-18")))).toMatchObject({
      id: 2,
      result: { protocolVersion: "2025-06-18" },
    });
    expect(session.negotiatedVersion).toBe("2025-06-18");
    expect(await send(session, request(3, "ping"))).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(await send(session, request(4, "initialize", initializeParams("2025-11-25")))).toEqual(
      errorReply(4, -32600, INITIALIZED),
    );
  });

  it("a stateless request that fails its _meta check does not lock the connection into the stateless era", async () => {
    const session = connectLines(fixture().server);
    const bad = { [MetaKey.protocolVersion]: "2026-07-28" };
    expect(await send(session, request(1, "tools/list", { _meta: bad }))).toEqual(errorReply(1, -32602, BAD_META));
    expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toMatchObject({
      id: 2,
      result: { protocolVersion: "2025-11-25" },
    });
  });
});

describe("the era a door chose (ReceiveOptions.era)", () => {
  const ask = async (session: ReturnType<typeof connectLines>, message: Json, era: Era) =>
    JSON.parse((await replyTo(session, JSON.stringify(message), { era })) ?? "null") as unknown;

  it("eraOf: initialize opens the handshake era unless the header names a stateless revision; _meta or that header is 2026-07-28", () => {
    const meta = stateless()._meta;
    expect(eraOf("initialize", undefined)).toBe("handshake");
    expect(eraOf("initialize", undefined, "2025-06-18")).toBe("handshake");
    expect(eraOf("initialize", undefined, "2026-07-28")).toBe("stateless");
    expect(eraOf("tools/list", meta)).toBe("stateless");
    expect(eraOf("tools/list", undefined, "2026-07-28")).toBe("stateless");
    expect(eraOf("tools/list", undefined, "2025-06-18")).toBeUndefined();
    expect(eraOf("ping", {})).toBeUndefined();
  });

  it("stateless: served in it, not chosen again from the request (no handshake-era ping without _meta)", async () => {
    const session = connectLines(fixture().server);
    expect(await ask(session, request(1, "ping"), "stateless")).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(await ask(session, request(2, "tools/list"), "stateless")).toEqual(
      errorReply(2, -32602, /: every 2026-07-28 request must carry it$/),
    );
    expect(await ask(session, request(3, "tools/list", stateless()), "stateless")).toMatchObject({
      id: 3,
      result: { tools: expect.any(Array) },
    });
  });

  it("handshake: initialize opens the session; anything else is not taken for the stateless era", async () => {
    const session = connectLines(fixture().server);
    expect(await ask(session, request(1, "tools/list", stateless()), "handshake")).toEqual(
      errorReply(1, -32602, NO_META),
    );
    expect(await ask(session, request(2, "initialize", initializeParams("2025-06-18")), "handshake")).toMatchObject({
      id: 2,
      result: { protocolVersion: "2025-06-18" },
    });
  });
});
