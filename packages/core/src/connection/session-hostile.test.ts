import { describe, expect, it } from "vitest";
import type { LogEntry } from "../context/logger.js";
import { EngineUnavailable, type SessionRecord } from "../engine/engine.js";
import { createServer } from "../server/server.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { connectLines, replyTo, sentOn } from "./connection.test-util.js";

// A kept session's record and its engine, as a careless store or a failing one hands them to a connection.

function record(changes: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: "s-1",
    principal: undefined,
    caller: undefined,
    version: "2025-06-18",
    clientInfo: { name: "c", version: "1" },
    clientCapabilities: {},
    initialized: true,
    logLevel: undefined,
    ...changes,
  };
}

function server(logged: LogEntry[] = []) {
  const s = createServer({ name: "kept", version: "1", logger: (entry) => logged.push(entry) });
  s.tool({
    name: "store",
    description: "Reaches a store that is down",
    handler: () => {
      throw new EngineUnavailable("Redis at redis://***@10.1.2.3:6390 is unavailable: connect ECONNREFUSED");
    },
  });
  s.tool({
    name: "chatty",
    description: "Logs at info",
    handler: (_args, ctx) => {
      ctx.log.info("hello");
      return "said";
    },
  });
  s.resource({ uri: "docs://a", handler: () => "a" });
  return s;
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });
const parse = (line: string | undefined) => JSON.parse(line ?? "null");

describe("a kept session's record, as a careless store gives it", () => {
  it("refuses a version that is no revision at all, or none of the handshake era", () => {
    for (const version of ["", "2024-11-05", "2099-01-01", "__proto__"]) {
      expect(() =>
        server().connect({ send: () => {}, session: record({ version: version as SessionRecord["version"] }) }),
      ).toThrow(TypeError);
    }
  });

  it("refuses initialize in a restored session, initialized or not", async () => {
    for (const initialized of [true, false]) {
      const connection = connectLines(server(), { session: record({ initialized }) });
      const again = parse(
        await replyTo(
          connection,
          request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x" } }),
        ),
      );
      expect(again.error?.code).toBe(ErrorCode.InvalidRequest);
      expect(connection.negotiatedVersion).toBe("2025-06-18");
    }
  });

  it("takes a log level it does not know as none set (no crash, no flood)", async () => {
    const connection = connectLines(server(), {
      session: record({ logLevel: "verbose" as SessionRecord["logLevel"] }),
    });
    const reply = parse(await replyTo(connection, request(1, "tools/call", { name: "chatty", arguments: {} })));
    expect(reply.result.content).toEqual([{ type: "text", text: "said" }]);
  });
});

describe("the engine failing under a kept session", () => {
  it("tells nothing of the store (host, port, stack) when a tool meets EngineUnavailable", async () => {
    const connection = connectLines(server(), { session: record() });
    const line = await replyTo(connection, request(1, "tools/call", { name: "store", arguments: {} }));
    const reply = parse(line);
    expect(reply.error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^Service unavailable/),
      data: { retryAfterSeconds: 2 },
    });
    expect(line).not.toMatch(/10\.1\.2\.3|6390|redis|ECONNREFUSED|\bat /i);
  });

  it("answers a change whose teller throws at once (not a rejection) and applies nothing", async () => {
    const connection = connectLines(server(), {
      session: record({ logLevel: "error" }),
      onSessionChange: () => {
        throw new EngineUnavailable("down");
      },
    });
    const level = parse(await replyTo(connection, request(1, "logging/setLevel", { level: "debug" })));
    expect(level.error?.code).toBe(-32000);
    expect(connection.logLevel).toBe("error");
    const subscribe = parse(await replyTo(connection, request(2, "resources/subscribe", { uri: "docs://a" })));
    expect(subscribe.error?.code).toBe(-32000);
    const ping = parse(await replyTo(connection, request(3, "ping")));
    expect(ping.result).toEqual({});
    expect(sentOn(connection).filter(({ line }) => parse(line).id === 1)).toHaveLength(1);
  });

  it("keeps the initialization when notifications/initialized's teller throws at once", async () => {
    const logged: LogEntry[] = [];
    const connection = connectLines(server(logged), {
      session: record({ initialized: false }),
      onSessionChange: () => {
        throw new EngineUnavailable("down");
      },
    });
    let outcome: unknown;
    try {
      await connection.receive(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    } catch (error) {
      outcome = error;
    }
    expect(outcome).toBeInstanceOf(EngineUnavailable);
    expect(connection.phase).toBe("initialization");
  });
});
