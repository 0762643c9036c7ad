import { createServer, DefinitionError } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "../doors/node-server.js";
import { forwardedFor } from "./forwarded-for.js";

// The client's address behind proxies that append to X-Forwarded-For: only their entries are believed.

const PEER = "127.0.0.9";

/** What `forwardedFor({ hops })` reads off a request carrying these X-Forwarded-For values (one header per item). */
function read(values: string[], hops?: number, peer: string | null = PEER): string | undefined {
  const headers = new Headers();
  for (const value of values) headers.append("x-forwarded-for", value);
  return forwardedFor(hops === undefined ? {} : { hops })(
    new Request("http://localhost/mcp", { headers }),
    peer ?? undefined,
  );
}

const saved = process.env.TOOLSMITH_TRUST_PROXY;
afterEach(() => {
  if (saved === undefined) delete process.env.TOOLSMITH_TRUST_PROXY;
  else process.env.TOOLSMITH_TRUST_PROXY = saved;
});

describe("forwardedFor", () => {
  it("reads the entry the one trusted proxy appended, never what the client wrote before it", () => {
    expect(read(["203.0.113.7"])).toBe("203.0.113.7");
    expect(read(["10.0.0.1, 10.0.0.2, 203.0.113.7"])).toBe("203.0.113.7");
    // Two header lines are one list, in order.
    expect(read(["10.0.0.1", "203.0.113.7"])).toBe("203.0.113.7");
    expect(read(["spoofed,203.0.113.7"])).toBe("203.0.113.7");
  });

  it("reads the entry `hops` from the right behind that many proxies, the leftmost when there are fewer", () => {
    expect(read(["10.0.0.1, 198.51.100.2, 203.0.113.7"], 2)).toBe("198.51.100.2");
    expect(read(["10.0.0.1, 198.51.100.2, 203.0.113.7"], 3)).toBe("10.0.0.1");
    expect(read(["198.51.100.2, 203.0.113.7"], 5)).toBe("198.51.100.2");
  });

  it("reads IPv6, bracketed or not, and drops a port some proxies add", () => {
    expect(read(["2001:db8::1"])).toBe("2001:db8::1");
    expect(read(["x, [2001:db8::1]:443"])).toBe("2001:db8::1");
    expect(read(["[2001:db8::1]"])).toBe("2001:db8::1");
    expect(read(["::ffff:203.0.113.7"])).toBe("::ffff:203.0.113.7");
    expect(read(["203.0.113.7:5678"])).toBe("203.0.113.7");
    expect(read([" 203.0.113.7 "])).toBe("203.0.113.7");
  });

  it("falls back to the socket's address when the entry is no IP address, or there is no header", () => {
    for (const garbage of [
      "unknown",
      "",
      "1.2.3.4,",
      "1.2.3.4, ",
      "999.1.1.1",
      "1.2.3.4.5",
      "[2001:db8::1",
      "[2001:db8::1]x",
      "1.2.3.4:port",
      "2001:db8::1:443:1:2:3:4:5",
      "_hidden",
      "a".repeat(10_000),
      "for=1.2.3.4;proto=http",
    ]) {
      expect(read([garbage]), garbage).toBe(PEER);
    }
    expect(read([])).toBe(PEER);
    // The web-standard handler knows no socket: no address, as without the option.
    expect(read(["unknown"], 1, null)).toBeUndefined();
  });

  it("reads a header of many entries, spoofed ones and all, from its end", () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(read([`${many.join(",")},203.0.113.7`])).toBe("203.0.113.7");
    expect(read([`${many.join(",")},203.0.113.7`], 3)).toBe("10.0.78.30");
  });

  it("refuses a number of hops that is not a whole number from 1", () => {
    for (const hops of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => forwardedFor({ hops }), String(hops)).toThrow(DefinitionError);
    }
  });

  it("is what listen uses when TOOLSMITH_TRUST_PROXY names a number of proxies, and a bad value stops it", async () => {
    process.env.TOOLSMITH_TRUST_PROXY = "one";
    await expect(listen(createServer({ name: "t", version: "1" }), { port: 0, log: null })).rejects.toThrow(
      /TOOLSMITH_TRUST_PROXY must be the number of proxies/,
    );
    process.env.TOOLSMITH_TRUST_PROXY = "1";
    const lines: string[] = [];
    const log = { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream;
    const http = await listen(createServer({ name: "t", version: "1" }), { port: 0, log });
    await http.close();
    expect(lines.at(-1)).toMatch(/^client addresses read from X-Forwarded-For, 1 proxy in front trusted/);
  });
});
