// Deliberate type errors under TC39 decorators: type-errors.test.ts runs tsc here and reads each message.
import { McpServer, resource, tool } from "@toolsmith/decorators";

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
