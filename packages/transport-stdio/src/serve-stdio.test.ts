import { createServer, type ErrorReport } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { call, serve } from "./in-process.test-util.js";

describe("serveStdio", () => {
  it("keeps the server's own error hook, and logs to stderr only when there is none", async () => {
    const seen: ErrorReport[] = [];
    const broken = () => {
      const server = createServer({ name: "e", version: "1" });
      server.tool({
        name: "boom",
        description: "throws",
        handler: () => {
          throw new TypeError("boom");
        },
      });
      return server;
    };
    const hooked = serve(broken().onError((_error, where) => seen.push(where)));
    hooked.write(call(1, "boom"));
    hooked.end();
    await hooked.connection.closed;
    expect(seen).toEqual([{ method: "tools/call", requestId: 1, tool: "boom" }]);
    expect(hooked.stderr()).toBe("");

    const plain = serve(broken());
    plain.write(call(1, "boom"));
    plain.end();
    await plain.connection.closed;
    expect(plain.stderr()).toContain("[toolsmith] tool boom (id 1) failed: TypeError: boom");
  });
});
