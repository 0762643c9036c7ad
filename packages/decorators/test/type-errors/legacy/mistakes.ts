// Deliberate type errors under legacy decorators: decorator-types.test.ts runs tsc here and reads each message.
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";

export class MistypedNames extends McpServer {
  @resource("items://{id}", { list: "itemz", complete: { id: "itemIdz" } })
  item({ id }: { id: string }) {
    return id;
  }

  @prompt({ args: { topic: z.string() }, complete: { topic: "topics" } })
  summarise({ topic }: { topic: string }) {
    return topic;
  }

  @tool({ description: "guarded", guard: "allowd" })
  x() {
    return 1;
  }

  items() {
    return [{ uri: "items://1", name: "one" }];
  }

  itemIds(value: string) {
    return [value];
  }

  topics() {
    return 3;
  }

  allowed() {
    return true;
  }
}
