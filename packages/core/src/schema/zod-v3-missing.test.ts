import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { compileSchema } from "./adapters.js";
import type { InputSchema } from "./schema-adapter.js";

// Without `import "@toolsmith/core/zod-v3"` (this file never loads it), a zod v3 schema says how to add it.

const ADD_IMPORT = 'is a zod v3 schema: add import "@toolsmith/core/zod-v3" once';

describe("zod v3 without its adapter", () => {
  it("a v3 schema, a v3 raw shape, and a v3 field after v4 ones each say to add the import", () => {
    const inputs: InputSchema[] = [
      z3.object({ a: z3.string() }),
      { a: z3.string() },
      { a: z.string(), b: z3.string() },
    ];
    for (const input of inputs) {
      const error = definitionError(() => compileSchema(input, "input", 'Tool "t" input'));
      expect(error.message).toContain(`Tool "t" input ${ADD_IMPORT}`);
    }
  });

  it("a field that is no schema at all outranks it: the shape is no shape", () => {
    const error = definitionError(() => compileSchema({ a: z3.string(), b: 1 } as never, "input", "x"));
    expect(error.message).toBe(
      'x must be a zod schema (zod v4, or zod v3 from "zod/v3"), a shape of zod fields, or a Standard Schema with a JSON Schema side (ArkType, Valibot via toStandardJsonSchema)',
    );
  });
});
