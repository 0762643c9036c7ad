import { createServer } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { errorMessage, headers2026, META, post } from "../exchange/requests.test-util.js";

// What a POST must declare before its body is read: JSON, an Accept listing JSON and SSE, no encoding, a size.

function server() {
  const s = createServer({ name: "http", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return s;
}

const handle = createHttpHandler(server(), { maxBodyBytes: 1000 });
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };

describe("a POST's declarations", () => {
  it("Content-Type other than JSON is 415", async () => {
    const refused = await handle(post(LIST, { ...headers2026("tools/list"), "content-type": "text/plain" }));
    expect(refused.status).toBe(415);
    expect(await errorMessage(refused)).toBe("Content-Type must be application/json");
  });

  it("an Accept without both JSON and SSE is 406; wildcards count", async () => {
    const refused = await handle(post(LIST, { ...headers2026("tools/list"), accept: "application/json" }));
    expect(refused.status).toBe(406);
    expect(await errorMessage(refused)).toBe("Accept must list application/json and text/event-stream");
    expect((await handle(post(LIST, { ...headers2026("tools/list"), accept: "*/*" }))).status).toBe(200);
    expect(
      (await handle(post(LIST, { ...headers2026("tools/list"), accept: "application/*, text/*;q=0.5" }))).status,
    ).toBe(200);
  });

  it("a Content-Encoding other than identity is 415 naming it", async () => {
    const refused = await handle(post(LIST, { ...headers2026("tools/list"), "content-encoding": "gzip" }));
    expect(refused.status).toBe(415);
    expect(await errorMessage(refused)).toBe("Content-Encoding gzip is not accepted; send the body uncompressed");
    expect((await handle(post(LIST, { ...headers2026("tools/list"), "content-encoding": "identity" }))).status).toBe(
      200,
    );
  });

  it("a body over maxBodyBytes is 413", async () => {
    const big = { ...LIST, params: { ...LIST.params, junk: "x".repeat(2000) } };
    const refused = await handle(post(big, headers2026("tools/list")));
    expect(refused.status).toBe(413);
    expect(await errorMessage(refused)).toBe("Request body over 1000 bytes");
  });
});
