import { describe, expect, it } from "vitest";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["AuthError", "createHttpEngine", "createHttpHandler", "listen", "nodeListener"];
const TYPES = [
  "AuthOptions",
  "HttpEngine",
  "HttpHandler",
  "HttpOptions",
  "HttpServer",
  "Incoming",
  "ListenOptions",
  "Outgoing",
  "ProtectionOptions",
];

describe("@toolsmith/transport-http's public surface", () => {
  it("exports exactly its listed values", async () => {
    expect(Object.keys(await import("./index.js")).sort()).toEqual([...VALUES].sort());
  });

  it("declares exactly its listed values and types", async () => {
    // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
    const raw = "./index.ts?raw";
    const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
    const names: string[] = [];
    for (const [, block] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from/g)) {
      for (const part of block!.split(",")) {
        const name = part.trim().replace(/^type\s+/, "");
        if (name !== "") names.push(name);
      }
    }
    expect(names.sort()).toEqual([...VALUES, ...TYPES].sort());
  });
});
