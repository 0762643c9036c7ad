// A server written with decorators, run as TypeScript by Bun and Deno themselves (no tsc): in TC39 decorators by
// default, in legacy ones (`experimentalDecorators`) with tsconfig.legacy.json (Bun's --tsconfig-override) or
// deno.legacy.json (Deno's --config). Serves over stdio, and says on stderr which dialect compiled it.
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

let dialect = "none";
// A TC39 method decorator gets (method, context); a legacy one (prototype, key, descriptor).
function observe(...args: unknown[]): void {
  dialect = typeof args[1] === "object" ? "tc39" : "legacy";
}

class Decorated extends McpServer {
  name = "decorated";
  version = "1.0.0";
  calls = 0;

  @tool({
    description: "Add two numbers",
    input: { a: z.number(), b: z.number() },
    output: z.object({ sum: z.number() }),
  })
  add({ a, b }: { a: number; b: number }) {
    this.calls++;
    return { sum: a + b };
  }

  @tool({ description: "How many calls this instance served" })
  @observe
  count() {
    return `${this.calls} calls`;
  }

  @resource("decorated://{id}", { description: "An item", mimeType: "text/plain" })
  item({ id }: { id: string }) {
    return `item ${id}`;
  }

  @prompt({ description: "Greet", args: { name: z.string() } })
  greet({ name }: { name: string }) {
    return `Hello, ${name}.`;
  }
}

process.stderr.write(`dialect ${dialect}\n`);
serveStdio(new Decorated());
