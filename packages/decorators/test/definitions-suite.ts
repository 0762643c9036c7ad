// From decorated classes to core's definitions (definitions.ts): inheritance, names, and the mistakes refused
// with what to change. Run in both decorator dialects (see dialect-suite.ts).
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Notes } from "./decorators-suite.js";
import { DIALECT } from "./dialect-suite.js";

describe(`decorators (${DIALECT})`, () => {
  it("a subclass inherits, adds, and overrides by redefining the method", async () => {
    class MoreNotes extends Notes {
      override name = "more-notes";

      @tool({ description: "Delete every note" })
      clear() {
        this.notes.clear();
        return "cleared";
      }

      // Redefined without a decorator: the parent's registration stays, this body runs.
      override count() {
        return { count: this.notes.size * 100 };
      }

      // Decorated again: this registration replaces the parent's, in place.
      @prompt({ description: "Summarise loudly", args: { topic: z.string() } })
      override summarise({ topic }: { topic: string }) {
        return `SUMMARISE ${topic.toUpperCase()}`;
      }
    }
    const more = new MoreNotes();
    const client = await createTestClient(more);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["add", "count_notes", "whoami", "clear"]);
    await client.callTool("add", { title: "t", body: "b" });
    expect((await client.callTool("count_notes")).structuredContent).toEqual({ count: 100 });
    expect((await client.listPrompts()).map((p) => [p.name, p.description])).toEqual([
      ["summarise", "Summarise loudly"],
    ]);
    expect((await client.getPrompt("summarise", { topic: "x" })).messages[0]?.content).toEqual({
      type: "text",
      text: "SUMMARISE X",
    });
    expect(await client.callTool("clear")).toMatchObject({ content: [{ type: "text", text: "cleared" }] });

    // The parent is untouched by its subclass.
    const parent = await createTestClient(new Notes());
    expect((await parent.listTools()).map((t) => t.name)).toEqual(["add", "count_notes", "whoami"]);
    expect((await parent.listPrompts())[0]?.description).toBe("Summarise notes");
  });

  it("a subclass may republish a method as another kind", async () => {
    class Base extends McpServer {
      @tool({ description: "a tool at first" })
      greet() {
        return "tool";
      }
    }
    class Derived extends Base {
      @prompt({ description: "now a prompt" })
      override greet() {
        return "prompt";
      }
    }
    const client = await createTestClient(new Derived());
    expect(client.serverResult.capabilities).toEqual({ logging: {}, prompts: { listChanged: true } });
    expect((await client.getPrompt("greet")).messages[0]?.content).toEqual({ type: "text", text: "prompt" });
  });

  it("symbol-named methods are told apart by the symbol, named by the option", async () => {
    const first = Symbol("op");
    const second = Symbol("op");
    class Symbolic extends McpServer {
      @tool({ description: "first", name: "first" })
      [first]() {
        return 1;
      }
      @tool({ description: "second", name: "second" })
      [second]() {
        return 2;
      }
    }
    const client = await createTestClient(new Symbolic());
    expect((await client.listTools()).map((t) => t.name)).toEqual(["first", "second"]);
    expect(await client.callTool("second")).toMatchObject({ content: [{ text: "2" }] });
    expect(() => {
      class Unnamed extends McpServer {
        @tool({ description: "x" })
        [Symbol("anonymous")]() {}
      }
      return Unnamed;
    }).toThrow(/symbol-named method needs the name option/);
  });

  it("two server classes never share registrations", async () => {
    class Alpha extends McpServer {
      @tool({ description: "alpha" })
      ping() {
        return "alpha";
      }
    }
    class Beta extends McpServer {
      @tool({ description: "beta" })
      pong() {
        return "beta";
      }
    }
    expect((await (await createTestClient(new Alpha())).listTools()).map((t) => t.name)).toEqual(["ping"]);
    expect((await (await createTestClient(new Beta())).listTools()).map((t) => t.name)).toEqual(["pong"]);
    expect((await createTestClient(new Alpha())).serverResult).toMatchObject({
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "alpha", version: "0.0.0" } },
    });
  });

  it("a resource names the store key it shows, a template the keys and the URI each feeds: a change tells it once", async () => {
    class Board extends McpServer {
      @resource("board://today", { description: "Today's board", storeKey: "board" })
      board() {
        return "the board";
      }

      @resource("cards://{id}", {
        description: "One card",
        storeKey: { prefix: "card:", uri: (key) => (key === "card:draft" ? undefined : `cards://${key.slice(5)}`) },
      })
      card({ id }: { id: string }) {
        return `card ${id}`;
      }
    }
    const server = new Board().toServer();
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const stream = await client.listen({ resourceSubscriptions: ["board://today", "cards://7", "cards://draft"] });
    await server.store.set("card:draft", 0);
    await server.store.set("board", { pinned: 1 });
    await server.store.update("card:7", () => ({ title: "seven" }));
    await server.store.set("cards", "not under card:");
    await server.store.delete("card:7");
    const uris = [];
    for (let n = 0; n < 3; n++) uris.push((await stream.next()).params?.uri);
    expect(uris).toEqual(["board://today", "cards://7", "cards://7"]);
    await stream.close();
    expect(stream.notifications).toHaveLength(3);
  });

  describe("mistakes fail at class definition with what to change", () => {
    it("a duplicate tool name in one class", () => {
      expect(() => {
        class Dup extends McpServer {
          @tool({ description: "one", name: "same" })
          a() {}
          @tool({ description: "two", name: "same" })
          b() {}
        }
        return Dup;
      }).toThrow(/"same" is already registered by (Dup\.)?a; give each its own name/);
    });

    it("an invalid tool name", () => {
      expect(() => {
        class Bad extends McpServer {
          @tool({ description: "x", name: "has space" })
          a() {}
        }
        return Bad;
      }).toThrow(/@tool on (Bad\.)?a: Tool name "has space" is invalid: use 1–64 characters/);
    });

    it("a missing description", () => {
      expect(() => {
        class NoDescription extends McpServer {
          @tool({} as { description: string })
          a() {}
        }
        return NoDescription;
      }).toThrow(/@tool on (NoDescription\.)?a: Tool "a" has no description; add one/);
    });

    it("template variables that do not match the input schema", () => {
      expect(() => {
        class Mismatch extends McpServer {
          // @ts-expect-error: the parameter follows the input schema, which has no id
          @resource("notes://{id}", { input: { key: z.string() } })
          note({ id }: { id: string }) {
            return id;
          }
        }
        return Mismatch;
      }).toThrow(/\{id\} has no field in the input schema; field "key" is not a template variable/);
    });

    it("a storeKey of the wrong shape: a template's is { prefix, uri }, a fixed URI's a key", () => {
      expect(() => {
        class Wrong extends McpServer {
          @resource("cards://{id}", { storeKey: "card:" })
          card({ id }: { id: string }) {
            return id;
          }
        }
        return Wrong;
      }).toThrow(
        /@resource on (Wrong\.)?card: Resource template "cards:\/\/\{id\}" storeKey must be \{ prefix, uri \}/,
      );
      expect(() => {
        class Wrong extends McpServer {
          @resource("cards://all", { storeKey: { prefix: "card:", uri: (key) => key } })
          cards() {
            return "all";
          }
        }
        return Wrong;
      }).toThrow(/@resource on (Wrong\.)?cards: Resource "cards:\/\/all" storeKey must be a key of the server's store/);
    });

    it("a list method that does not exist, when the server is built", () => {
      class Lister extends McpServer {
        // @ts-expect-error: the class has no method "nope"
        @resource("items://{id}", { list: "nope" })
        item({ id }: { id: string }) {
          return id;
        }
      }
      expect(() => new Lister().toServer()).toThrow(/"nope", which is not a method of Lister/);
    });

    it("a cache hint the wire would not allow, naming the field", () => {
      const define = (options: object) => () => {
        class Cached extends McpServer {
          @resource("notes://{id}", options as { cache: never })
          note({ id }: { id: string }) {
            return id;
          }
        }
        return new Cached().toServer();
      };
      expect(define({ cache: { ttlMs: NaN, cacheScope: "public" } })).toThrow(
        /Resource template "notes:\/\/\{id\}" cache\.ttlMs must be a whole number of milliseconds, 0 or more, not NaN/,
      );
      expect(define({ list: "note", listCache: { ttlMs: 0, cacheScope: "public", maxAge: 1 } })).toThrow(
        /listCache\.maxAge is not a field of a hint; a hint is \{ ttlMs, cacheScope \}/,
      );
    });

    it("a cache hint is taken when the server is built; changing the options object later changes nothing", async () => {
      const cache = { ttlMs: 5_000, cacheScope: "public" as "public" | "private" };
      class Cached extends McpServer {
        @resource("notes://today", { cache })
        today() {
          return "today";
        }
      }
      const server = new Cached();
      const client = await createTestClient(server);
      Object.assign(cache, { ttlMs: -1, cacheScope: "shared" });
      expect(await client.request("resources/read", { uri: "notes://today" })).toMatchObject({
        ttlMs: 5_000,
        cacheScope: "public",
      });
    });

    it("a method decorated twice with the same kind", () => {
      expect(() => {
        class Twice extends McpServer {
          @tool({ description: "one", name: "one" })
          @tool({ description: "two", name: "two" })
          both() {}
        }
        return Twice;
      }).toThrow(/already has @tool; one method publishes one tool/);
    });

    it("the same name from a parent's and a child's different methods", () => {
      class Parent extends McpServer {
        @tool({ description: "p" })
        go() {}
      }
      class Child extends Parent {
        @tool({ description: "c", name: "go" })
        other() {}
      }
      expect(() => new Child().toServer()).toThrow(/tool "go" is registered by both Parent\.go and Child\.other/);
    });
  });
});
