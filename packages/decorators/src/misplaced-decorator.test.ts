import { describe, expect, it } from "vitest";
import { tool, use } from "./index.js";

// What a TC39 runtime hands a decorator placed on an auto-accessor: the message must read as English ("an accessor").
const accessorContext = { kind: "accessor", name: "count", static: false, private: false, metadata: {} };

describe("a decorator on something it does not decorate", () => {
  it("says what it was put on, with the right article", () => {
    const onTool = tool({ description: "x" }) as unknown as (value: unknown, context: unknown) => void;
    expect(() => onTool(undefined, accessorContext)).toThrow('@tool decorates methods; "count" is an accessor');
    const onUse = use((_operation, next) => next()) as unknown as (value: unknown, context: unknown) => void;
    expect(() => onUse(undefined, accessorContext)).toThrow(
      "@use goes on a server class or one of its decorated methods, not an accessor",
    );
  });
});
