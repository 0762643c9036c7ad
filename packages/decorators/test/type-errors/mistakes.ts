// Deliberate type errors under TC39 decorators: decorator-types.test.ts runs tsc here and reads each message.
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";

export class NotAServer {
  @tool({ description: "forgot extends McpServer" })
  x() {
    return 1;
  }
}

export class WrongListReturn extends McpServer {
  @resource("items://{id}", { list: "items" })
  item({ id }: { id: string }) {
    return id;
  }

  items() {
    return ["items://1", "items://2"];
  }
}

export class MistypedListName extends McpServer {
  @resource("items://{id}", { list: "itemz" })
  item({ id }: { id: string }) {
    return id;
  }

  items() {
    return [{ uri: "items://1", name: "one" }];
  }
}

export class MistypedCompleterName extends McpServer {
  @resource("items://{id}", { complete: { id: "itemIdz" } })
  item({ id }: { id: string }) {
    return id;
  }

  itemIds(value: string) {
    return [value];
  }
}

export class WrongCompleterReturn extends McpServer {
  @prompt({ args: { topic: z.string() }, complete: { topic: "topics" } })
  summarise({ topic }: { topic: string }) {
    return topic;
  }

  topics() {
    return 3;
  }
}

export class MistypedGuardName extends McpServer {
  @tool({ description: "guarded", guard: "allowd" })
  x() {
    return 1;
  }

  allowed() {
    return true;
  }
}
