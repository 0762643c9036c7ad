import { describe, expect, it } from "vitest";
import { MetaKey } from "../transport.js";
import { connectLines } from "./connection.test-util.js";
import {
  CLIENT,
  errorReply,
  fixture,
  initializeParams,
  type Json,
  META,
  request,
  send,
  stateless,
} from "./fixture.test-util.js";

const BAD_META = /^Invalid params\._meta: /;

describe("stateless admission: each request on its own _meta", () => {
  it("a request without _meta → -32602, before and after a stateless request", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list"))).toEqual(
      errorReply(1, -32602, /a client of an earlier revision must send initialize first/),
    );
    expect(await send(session, request(2, "tools/list", stateless()))).toMatchObject({ id: 2, result: {} });
    const missing = /: every 2026-07-28 request must carry it$/;
    expect(await send(session, request(3, "tools/list"))).toEqual(errorReply(3, -32602, missing));
    expect(await send(session, request(4, "tools/list", { _meta: {} }))).toEqual(errorReply(4, -32602, missing));
  });

  it("a handshake revision in _meta → -32022 that says to use initialize", async () => {
    const session = connectLines(fixture().server);
    const reply = (await send(
      session,
      request(1, "tools/list", { _meta: { ...META, [MetaKey.protocolVersion]: "2025-11-25" } }),
    )) as { error: { code: number; message: string; data: unknown } };
    expect(reply.error.code).toBe(-32022);
    expect(reply.error.message).toContain("initialize");
    expect(reply.error.data).toMatchObject({
      requested: "2025-11-25",
      supported: expect.arrayContaining(["2026-07-28"]),
    });
    const init = (await send(session, request(2, "initialize", initializeParams("2025-11-25")))) as Json;
    expect(init.result).toMatchObject({ protocolVersion: "2025-11-25" });
  });

  it("_meta without clientCapabilities → -32602", async () => {
    const session = connectLines(fixture().server);
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientInfo]: CLIENT };
    expect(await send(session, request(1, "tools/list", { _meta: meta }))).toEqual(errorReply(1, -32602, BAD_META));
    const listMeta = { ...meta, [MetaKey.clientCapabilities]: [] };
    expect(await send(session, request(2, "tools/list", { _meta: listMeta }))).toEqual(errorReply(2, -32602, BAD_META));
  });

  it("_meta with a bad clientInfo or logLevel → -32602", async () => {
    const session = connectLines(fixture().server);
    const badInfo = { ...META, [MetaKey.clientInfo]: { name: 5 } };
    expect(await send(session, request(1, "tools/list", { _meta: badInfo }))).toEqual(errorReply(1, -32602, BAD_META));
    const badLevel = { ...META, [MetaKey.logLevel]: "loud" };
    expect(await send(session, request(2, "tools/list", { _meta: badLevel }))).toEqual(errorReply(2, -32602, BAD_META));
  });

  for (const requested of ["2099-01-01", "2025-11-25"]) {
    it(`an unsupported version (${requested}) → -32022 with data.supported and data.requested`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(
        session,
        request(1, "tools/list", { _meta: { ...META, [MetaKey.protocolVersion]: requested } }),
      )) as Json;
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32022 } });
      const data = (reply.error as Json).data as Json;
      expect(data.requested).toBe(requested);
      expect(data.supported).toContain("2026-07-28");
    });
  }

  it("a request without clientInfo is still served", async () => {
    const session = connectLines(fixture().server);
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    const reply = (await send(session, request(1, "tools/call", { name: "who", _meta: meta }))) as Json;
    expect(reply).toMatchObject({ id: 1, result: { resultType: "complete" } });
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: null, version: "2026-07-28" });
  });

  it("each request is judged by its own _meta, not by earlier ones", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "tools/list", stateless()));
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    const reply = (await send(session, request(2, "tools/call", { name: "who", _meta: meta }))) as Json;
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: null, version: "2026-07-28" });
  });
});
