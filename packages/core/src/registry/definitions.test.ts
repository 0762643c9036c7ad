import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createServer, defineResourceTemplate, type Server } from "../index.js";
import type { UriVariables } from "../schema/uri-template.js";

function newServer(): Server {
  return createServer({ name: "definitions-test", version: "1.0.0" });
}

// What a server with templates advertises (logging always).
const RESOURCES = { logging: {}, resources: { subscribe: true, listChanged: true } };

describe("defineResourceTemplate types the handler's variables from input", () => {
  it("a raw shape, a z.object, and no input", () => {
    const fromShape = defineResourceTemplate({
      uriTemplate: "n://{id}{?tag}",
      input: { id: z.coerce.number(), tag: z.string().optional() },
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<{ id: number; tag?: string | undefined }>();
        return variables.id;
      },
    });
    const fromObject = defineResourceTemplate({
      uriTemplate: "u://{name}",
      input: z.object({ name: z.string().transform((name) => name.length) }),
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<{ name: number }>();
        return variables.name;
      },
    });
    const untyped = defineResourceTemplate({
      uriTemplate: "r://{id}",
      handler: (variables) => {
        expectTypeOf(variables).toEqualTypeOf<UriVariables>();
        // @ts-expect-error: the raw variables are strings or arrays, not numbers
        const id: number = variables.id;
        return id;
      },
    });
    // Type-level assertions above are checked by tsc; at runtime the definitions are returned as given.
    expect(fromShape.uriTemplate).toBe("n://{id}{?tag}");
    expect(fromObject.uriTemplate).toBe("u://{name}");
    expect(untyped.uriTemplate).toBe("r://{id}");
    const server = newServer();
    server.resource(fromShape);
    server.resource(fromObject);
    server.resource(untyped);
    expect(server.capabilities()).toEqual(RESOURCES);
  });
});
