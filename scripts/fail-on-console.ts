import { afterEach, beforeEach } from "vitest";

// Any console output during a test fails it: on stdio a stray line is a protocol error.
const METHODS = ["log", "info", "debug", "warn", "error", "trace", "dir", "table"] as const;
const original = new Map(METHODS.map((method) => [method, console[method]]));
let calls: string[] = [];

beforeEach(() => {
  calls = [];
  for (const method of METHODS) {
    console[method] = (...args: unknown[]) => {
      calls.push(`console.${method}(${args.map((arg) => String(arg)).join(", ")})`);
    };
  }
});

afterEach(() => {
  for (const [method, fn] of original) console[method] = fn as never;
  if (calls.length > 0) throw new Error(`console was used during the test:\n${calls.join("\n")}`);
});
