// The @example blocks of @toolsmith/decorators: compiled by `pnpm typecheck` in both decorator dialects (the
// tsconfigs in ../test), copied into the TSDoc by scripts/sync-examples.mjs.
import { type RequestLogLine, rateLimit, requestLog } from "@toolsmith/core/middleware";
import { type Args, McpServer, prompt, resource, skill, tool, use } from "@toolsmith/decorators";
import { z } from "zod";

export function counter(): McpServer {
  //#region McpServer
  class Notes extends McpServer {
    name = "notes";
    version = "1.0.0";
    @tool({ description: "Count notes" }) count() {
      return 0;
    }
  }
  //#endregion McpServer
  return new Notes();
}

export function logged(log: (line: RequestLogLine) => void): McpServer {
  //#region use
  @use(requestLog(log))
  class Notes extends McpServer {
    @use(rateLimit({ capacity: 3 }))
    @tool({ description: "Add a note", input: { title: z.string() } })
    add() {}
  }
  //#endregion use
  return new Notes();
}

export function desk(): McpServer {
  //#region Args
  const Booking = z.object({ from: z.string(), to: z.string(), seats: z.number().default(1) });
  class Desk extends McpServer {
    @tool({ description: "Book a seat", input: Booking })
    book({ from, to, seats }: Args<typeof Booking>) {
      return `${seats} × ${from}–${to}`;
    }
  }
  //#endregion Args
  return new Desk();
}

export function calculator(): McpServer {
  //#region tool
  class Calc extends McpServer {
    @tool({ description: "Add two numbers", input: { a: z.number(), b: z.number() } })
    add({ a, b }: { a: number; b: number }) {
      return a + b;
    }
  }
  //#endregion tool
  return new Calc();
}

export function notes(): McpServer {
  //#region resource
  class Notes extends McpServer {
    notes = new Map<string, string>();
    @resource("notes://{id}", { description: "One note", list: "listNotes", complete: { id: "noteIds" } })
    note({ id }: { id: string }) {
      return this.notes.get(id);
    }
    listNotes() {
      return [...this.notes.keys()].map((id) => ({ uri: `notes://${id}`, name: id }));
    }
    noteIds(value: string) {
      return [...this.notes.keys()].filter((id) => id.startsWith(value));
    }
  }
  //#endregion resource
  return new Notes();
}

export function summaries(): McpServer {
  //#region prompt
  class Notes extends McpServer {
    @prompt({ description: "Summarise notes", args: { topic: z.string() }, complete: { topic: "topics" } })
    summarise({ topic }: { topic: string }) {
      return `Summarise my notes on ${topic}`;
    }
    topics(value: string) {
      return ["work", "home"].filter((topic) => topic.startsWith(value));
    }
  }
  //#endregion prompt
  return new Notes();
}

export function docs(): McpServer {
  //#region skill
  class Docs extends McpServer {
    @skill("git-workflow")
    gitWorkflow() {
      return {
        "SKILL.md": "---\nname: git-workflow\ndescription: Branch and commit as we do\n---\nBranch from main.\n",
      };
    }
  }
  //#endregion skill
  return new Docs();
}
