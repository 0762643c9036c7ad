// What @tool, @resource and @prompt refuse when they are applied (method-decorator.ts): anything but a public
// instance method, and the base class's own names. Run in both decorator dialects (see dialect-suite.ts).
import { McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { DIALECT } from "./dialect-suite.js";

describe(`decorators (${DIALECT})`, () => {
  describe("mistakes fail at class definition with what to change", () => {
    it("a decorator on a field or a getter", () => {
      expect(() => {
        class OnField extends McpServer {
          // @ts-expect-error: a tool is a method, not a field
          @tool({ description: "x" })
          field = 1;
        }
        return new OnField();
      }).toThrow(/decorates methods/);
      expect(() => {
        class OnGetter extends McpServer {
          // @ts-expect-error: a tool is a method, not a getter
          @tool({ description: "x" })
          get value() {
            return 1;
          }
        }
        return OnGetter;
      }).toThrow(/decorates methods/);
    });

    it("a decorator on a static method", () => {
      expect(() => {
        class OnStatic extends McpServer {
          // @ts-expect-error: a tool is an instance method
          @tool({ description: "x" })
          static make() {
            return 1;
          }
        }
        return OnStatic;
      }).toThrow(/static/);
    });

    it("a method named like one of the base class's identity fields", () => {
      expect(() => {
        class Versioned extends McpServer {
          @tool({ description: "Reports the version" })
          version() {
            return "1";
          }
        }
        return Versioned;
      }).toThrow(/"version" belongs to McpServer; rename the method and set name: "version"/);
    });
  });
});
