import { expect, it } from "vitest";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { createServer } from "./server.js";

it("a page size below 1 is a definition error", () => {
  expect(definitionError(() => createServer({ name: "x", version: "1", pageSize: 0 })).message).toBe(
    "pageSize must be at least 1, not 0",
  );
});
