import { createServer, ErrorCode } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { headers2026, post } from "../exchange/requests.test-util.js";

// The dispatcher's own routing: the endpoint's path, its verbs, and a body that must be JSON.

const handle = createHttpHandler(createServer({ name: "dispatcher", version: "1" }));

describe("the dispatcher", () => {
  it("another path is 404; a verb other than POST, GET and DELETE is 405 naming them", async () => {
    const elsewhere = await handle(
      new Request("http://127.0.0.1:3000/other", { method: "POST", headers: headers2026("tools/list"), body: "{}" }),
    );
    expect(elsewhere.status).toBe(404);
    const put = await handle(new Request("http://127.0.0.1:3000/mcp", { method: "PUT", body: "{}" }));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("POST, GET, DELETE");
  });

  it("a body that is not JSON is 400 + -32700", async () => {
    const broken = await handle(post("{not json", headers2026("tools/list")));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      id: null,
      error: { code: ErrorCode.ParseError, message: "Parse error: the body is not valid JSON" },
    });
  });
});
