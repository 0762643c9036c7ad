import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (reads a module's exports from its syntax)
import { exportedNames } from "../../../scripts/imports.mjs";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = [
  "AuthError",
  "AuthUnavailable",
  "createHttpDispatcher",
  "createHttpHandler",
  "forwardedFor",
  "listen",
  "nodeListener",
];
const TYPES = [
  "AuthenticateHook",
  "AuthOptions",
  "ForwardedForOptions",
  "HttpDispatcher",
  "HttpHandler",
  "HttpOptions",
  "HttpServer",
  "Incoming",
  "ListenOptions",
  "Outgoing",
  "ProtectionOptions",
  "RemoteAddress",
  "RouteHandler",
  "RouteInfo",
  "RouteOptions",
  "Routes",
];

describe("@toolsmith/transport-http's public surface", () => {
  it("exports exactly its listed values", async () => {
    expect(Object.keys(await import("./index.js")).sort()).toEqual([...VALUES].sort());
  });

  it("declares exactly its listed values and types", async () => {
    // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
    const raw = "./index.ts?raw";
    const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
    expect(exportedNames("index.ts", source)).toEqual([...VALUES, ...TYPES].sort());
  });
});
