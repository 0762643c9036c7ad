// What Args<…> and a tool's return type are read as from a raw JSON Schema, ArkType and Valibot, in each decorator
// dialect: type tests that fail to compile when inference regresses (tsconfig.tc39.json, tsconfig.legacy.json).
import { jsonSchema } from "@toolsmith/core/json-schema";
import { type Args, McpServer, tool } from "@toolsmith/decorators";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { DIALECT } from "./dialect-suite.js";

// Written inline: jsonSchema's const type parameter reads it as `as const` would.
const Order = jsonSchema({
  type: "object",
  properties: {
    item: { type: "string" },
    size: { enum: ["s", "m", "l"] },
    count: { type: "integer", default: 1 },
    note: { type: ["string", "null"] },
    ship: {
      type: "object",
      properties: { city: { type: "string" }, floor: { type: "integer" } },
      required: ["city"],
    },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["item", "size"],
  additionalProperties: false,
});
// Declared apart with `as const`, then wrapped.
const ORDER_SCHEMA = {
  type: "object",
  properties: {
    item: { type: "string" },
    lines: { type: "array", items: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  },
  required: ["item"],
} as const;
const Lines = jsonSchema(ORDER_SCHEMA);
const Receipt = jsonSchema({ type: "object", properties: { total: { type: "number" } }, required: ["total"] });
const ArkReceipt = type({ total: "number" });
const ValiReceipt = toStandardJsonSchema(v.object({ total: v.number() }));
const ArkOrder = type({ item: "string", size: "'s' | 'm' | 'l'", "ship?": { city: "string" }, tags: "string[]" });
const ValiOrder = toStandardJsonSchema(
  v.object({ item: v.string(), count: v.optional(v.number(), 1), ship: v.optional(v.object({ city: v.string() })) }),
);

export class Shop extends McpServer {
  name = "shop";
  version = "1";

  @tool({ description: "Order", input: Order, output: Receipt })
  order({ count }: Args<typeof Order>) {
    return { total: count * 2 };
  }

  // @ts-expect-error: the raw output schema wants a number total
  @tool({ description: "lies", output: Receipt })
  rawLies() {
    return { total: "two" };
  }

  // @ts-expect-error: the raw output schema requires total
  @tool({ description: "forgets", output: Receipt })
  rawForgets() {
    return {};
  }

  // @ts-expect-error: the ArkType output wants a number total
  @tool({ description: "lies", output: ArkReceipt })
  arkLies() {
    return { total: "two" };
  }

  // @ts-expect-error: the Valibot output wants a number total
  @tool({ description: "lies", output: ValiReceipt })
  async valiLies() {
    return { total: "two" };
  }

  // @ts-expect-error: the raw schema's size is an enum of strings, not any string's method
  @tool({ description: "wrong enum", input: Order })
  wrongEnum({ size }: { size: number }) {
    return String(size);
  }

  @tool({ description: "ArkType output", output: ArkReceipt })
  arkTruth() {
    return { total: 2 };
  }
}

describe(`schema types in decorators (${DIALECT})`, () => {
  it("Args<…> of a raw JSON Schema: required, optional, enum, nullable, nested, arrays, a default filled in", () => {
    expectTypeOf<Args<typeof Order>>().toEqualTypeOf<{
      item: string;
      size: "s" | "m" | "l";
      count: number;
      note?: string | null;
      ship?: { city: string; floor?: number };
      tags?: string[];
    }>();
    expectTypeOf<Args<typeof Lines>>().toEqualTypeOf<{ item: string; lines?: { n: number }[] }>();
  });

  it("Args<…> of ArkType and Valibot: nested objects, arrays, enums, optional and defaults", () => {
    expectTypeOf<Args<typeof ArkOrder>>().toEqualTypeOf<{
      item: string;
      size: "s" | "m" | "l";
      ship?: { city: string };
      tags: string[];
    }>();
    expectTypeOf<Args<typeof ValiOrder>>().toEqualTypeOf<{
      item: string;
      count: number;
      ship?: { city: string } | undefined;
    }>();
  });
});
