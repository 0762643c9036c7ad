// One decorator suite, run twice from source: TC39 decorators lowered by @toolsmith/vitest, and legacy
// experimentalDecorators + emitDecoratorMetadata compiled by vite (tsconfig.legacy.json). Both must pass it
// unchanged; tsconfig.tc39.json and tsconfig.legacy.json type-check it in each dialect.
import { createServer, DefinitionError, type RequestContext } from "@toolsmith/core";
import { zodV4Adapter } from "@toolsmith/core/internal";
import { createTestClient } from "@toolsmith/core/testing";
import { type Args, McpServer, prompt, resource, tool, use } from "@toolsmith/decorators";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";

export const DIALECT: string = (globalThis as { __toolsmithDialect?: string }).__toolsmithDialect ?? "unknown";

type Note = { title: string; body: string };

class Notes extends McpServer {
  name = "notes";
  version = "1.2.3";
  instructions = "Keep notes.";
  readonly notes = new Map<string, Note>();

  @tool({ description: "Add a note", input: { title: z.string().min(1), body: z.string() } })
  add({ title, body }: { title: string; body: string }) {
    const id = String(this.notes.size + 1);
    this.notes.set(id, { title, body });
    return { id };
  }

  @tool({ description: "How many notes there are", name: "count_notes", output: z.object({ count: z.number() }) })
  count() {
    return { count: this.notes.size };
  }

  @tool({ description: "Who is asking" })
  whoami(_args: Record<string, never>, ctx: RequestContext) {
    return { id: ctx.requestId, era: ctx.era, client: ctx.clientInfo?.name, aborted: ctx.signal.aborted };
  }

  @resource("notes://all", { description: "Every note title", mimeType: "text/plain" })
  all() {
    return [...this.notes.values()].map((note) => note.title).join("\n");
  }

  @resource("notes://{id}", { description: "One note", mimeType: "application/json", list: "listNotes" })
  note({ id }: { id: string }) {
    return this.notes.get(id);
  }

  listNotes() {
    return [...this.notes.keys()].map((id) => ({ uri: `notes://${id}`, name: `note ${id}` }));
  }

  @prompt({ description: "Summarise notes", args: { topic: z.string().describe("what about") } })
  summarise({ topic }: { topic: string }) {
    return `Summarise ${this.notes.size} notes about ${topic}`;
  }
}

async function texts(
  server: McpServer,
  name: string,
  args: Record<string, unknown> = {},
  protocolVersion = "2026-07-28" as const,
) {
  const client = await createTestClient(server, { protocolVersion });
  return client.callTool(name, args);
}

describe(`decorators (${DIALECT})`, () => {
  it("runs in the dialect it says it does", () => {
    class Probe extends McpServer {
      @tool({ description: "probe" })
      probe() {}
    }
    // TC39 decorators leave their metadata on the class; legacy ones leave none there.
    const tc39 = Object.hasOwn(Probe, Symbol.metadata) && Probe[Symbol.metadata] !== null;
    expect(tc39 ? "TC39 standard decorators" : "legacy experimentalDecorators").toBe(DIALECT);
  });

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`serves tools, resources and prompts from methods (${protocolVersion})`, async () => {
      const notes = new Notes();
      const client = await createTestClient(notes, { protocolVersion });
      expect(client.serverResult).toMatchObject(
        protocolVersion === "2026-07-28"
          ? {
              _meta: { "io.modelcontextprotocol/serverInfo": { name: "notes", version: "1.2.3" } },
              instructions: "Keep notes.",
            }
          : { serverInfo: { name: "notes", version: "1.2.3" }, instructions: "Keep notes." },
      );
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["add", "count_notes", "whoami"]);
      expect(tools[0]?.inputSchema).toMatchObject({
        type: "object",
        properties: { title: { type: "string", minLength: 1 }, body: { type: "string" } },
        required: ["title", "body"],
      });
      expect(tools[1]?.outputSchema).toMatchObject({ type: "object", properties: { count: { type: "number" } } });
      expect(await client.callTool("add", { title: "a", body: "b" })).toMatchObject({ structuredContent: { id: "1" } });
      expect(await client.callTool("count_notes")).toMatchObject({ structuredContent: { count: 1 }, isError: false });
      expect(notes.notes.get("1")).toEqual({ title: "a", body: "b" });

      expect(await client.listResources()).toEqual([
        expect.objectContaining({ uri: "notes://all", name: "all", mimeType: "text/plain" }),
        { uri: "notes://1", name: "note 1" },
      ]);
      expect(await client.listResourceTemplates()).toEqual([
        expect.objectContaining({ uriTemplate: "notes://{id}", name: "note", description: "One note" }),
      ]);
      expect((await client.readResource("notes://1")).contents).toEqual([
        { uri: "notes://1", mimeType: "application/json", text: '{"title":"a","body":"b"}' },
      ]);
      await expect(client.readResource("notes://9")).rejects.toMatchObject({
        code: protocolVersion === "2026-07-28" ? -32602 : -32002,
      });
      expect(await client.listPrompts()).toEqual([
        expect.objectContaining({
          name: "summarise",
          arguments: [{ name: "topic", description: "what about", required: true }],
        }),
      ]);
      expect((await client.getPrompt("summarise", { topic: "x" })).messages).toEqual([
        { role: "user", content: { type: "text", text: "Summarise 1 notes about x" } },
      ]);
    });
  }

  it("passes the request context last", async () => {
    const result = await texts(new Notes(), "whoami");
    expect(result.structuredContent).toEqual({
      id: 1,
      era: "stateless",
      client: "toolsmith-test-client",
      aborted: false,
    });
  });

  it("validates arguments before the method runs and reports each bad field", async () => {
    const notes = new Notes();
    const result = await texts(notes, "add", { title: "", body: 5 });
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain("title:");
    expect(text).toContain("body:");
    expect(notes.notes.size).toBe(0);
  });

  it("keeps each instance's state its own", async () => {
    const a = new Notes();
    const b = new Notes();
    await texts(a, "add", { title: "only in a", body: "" });
    expect((await texts(a, "count_notes")).structuredContent).toEqual({ count: 1 });
    expect((await texts(b, "count_notes")).structuredContent).toEqual({ count: 0 });
    expect(a.toServer()).toBe(a.toServer());
    expect(a.toServer()).not.toBe(b.toServer());
  });

  it("does the schema work once per class, not per instance or per request", async () => {
    class Counted extends McpServer {
      @tool({ description: "echo", input: { text: z.string() } })
      echo({ text }: { text: string }) {
        return text;
      }
    }
    const compile = vi.spyOn(zodV4Adapter, "toJsonSchema");
    try {
      const servers = [new Counted(), new Counted(), new Counted()];
      const clients = await Promise.all(servers.map((server) => createTestClient(server)));
      for (const client of clients) for (let i = 0; i < 10; i++) await client.callTool("echo", { text: `${i}` });
      // The decorator compiled the schema when the class was defined; instances and calls reuse it.
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

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

  it("takes identity from super() options too", async () => {
    class Named extends McpServer {
      constructor() {
        super({ name: "from-options", version: "9.9.9", instructions: "hi" });
      }
      @tool({ description: "x" })
      x() {
        return 1;
      }
    }
    expect((await createTestClient(new Named(), { protocolVersion: "2025-11-25" })).serverResult).toMatchObject({
      serverInfo: { name: "from-options", version: "9.9.9" },
      instructions: "hi",
    });
  });

  it("an output that does not fit the output schema is an isError result", async () => {
    class Liar extends McpServer {
      // @ts-expect-error: caught at compile time too; this checks what a JavaScript caller gets
      @tool({ description: "Claims a count", output: z.object({ count: z.number() }) })
      count() {
        return { count: "many" };
      }
    }
    const result = await texts(new Liar(), "count");
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/output schema[\s\S]*count/);
  });

  it("a method that throws gives an isError result with its message", async () => {
    class Broken extends McpServer {
      @tool({ description: "Always fails" })
      fail() {
        throw new Error("it broke");
      }
    }
    const result = await texts(new Broken(), "fail");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "it broke" }] });
  });

  it("a method's arguments are typed once, from the schema, with Args<typeof schema>", async () => {
    const Booking = z.object({
      from: z.string(),
      to: z.string(),
      date: z.string(),
      seats: z.number().int().min(1).default(1),
      cabin: z.enum(["economy", "business"]),
      note: z.string().optional(),
    });
    const Brief = { destination: z.string(), tone: z.string().optional() };
    expectTypeOf<Args<typeof Booking>>().toEqualTypeOf<{
      from: string;
      to: string;
      date: string;
      seats: number;
      cabin: "economy" | "business";
      note?: string | undefined;
    }>();
    expectTypeOf<Args<typeof Brief>>().toEqualTypeOf<{ destination: string; tone?: string | undefined }>();

    class Desk extends McpServer {
      @tool({ description: "Book a trip", input: Booking })
      book({ from, to, seats, cabin }: Args<typeof Booking>) {
        return `${seats} ${cabin} ${from}-${to}`;
      }

      @tool({ description: "Book from the shape", input: Booking.shape })
      bookShape(booking: Args<typeof Booking.shape>, ctx: RequestContext) {
        return { ...booking, era: ctx.era };
      }

      @prompt({ description: "Brief a trip", args: Brief })
      brief({ destination, tone }: Args<typeof Brief>) {
        return `Brief me on ${destination}${tone ? `, ${tone}` : ""}`;
      }
    }
    const client = await createTestClient(new Desk());
    const trip = { from: "LHR", to: "CDG", date: "2026-08-01", cabin: "economy" };
    // The method gets the parsed values: the default is filled in, as Args says (seats: number, not optional).
    expect(await client.callTool("book", trip)).toMatchObject({ content: [{ text: "1 economy LHR-CDG" }] });
    expect((await client.callTool("bookShape", { ...trip, seats: 2 })).structuredContent).toEqual({
      ...trip,
      seats: 2,
      era: "stateless",
    });
    expect((await client.getPrompt("brief", { destination: "Paris" })).messages[0]?.content).toEqual({
      type: "text",
      text: "Brief me on Paris",
    });
  });

  it("template variables are typed from the template and validated by an input schema", async () => {
    class Files extends McpServer {
      @resource("files://{dir}/{name}{?rev}")
      file({ dir, name, rev }: { dir: string; name: string; rev?: string }) {
        return `${dir}|${name}|${rev ?? "-"}`;
      }

      @resource("pages://{n}", { input: { n: z.coerce.number().int().positive() } })
      page({ n }: { n: number }) {
        return `page ${n + 1}`;
      }
    }
    const client = await createTestClient(new Files());
    expect((await client.readResource("files://a/b.txt?rev=3")).contents[0]).toMatchObject({ text: "a|b.txt|3" });
    expect((await client.readResource("pages://41")).contents[0]).toMatchObject({ text: "page 42" });
    await expect(client.readResource("pages://x")).rejects.toMatchObject({ code: -32602 });
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
      }).toThrow(DefinitionError);
    });

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

// Completers, list and guards that name methods: they run on the instance, so they read its state.
type Issue = { title: string; open: boolean };

class Tracker extends McpServer {
  readonly issues: Map<string, Issue>;

  constructor(
    ids: string[],
    readonly labels: string[],
    readonly readOnly = false,
  ) {
    super();
    this.issues = new Map(ids.map((id) => [id, { title: `issue ${id}`, open: true }]));
  }

  @resource("issues://{id}", { description: "One issue", list: "listIssues", complete: { id: "issueIds" } })
  issue({ id }: { id: string }) {
    return this.issues.get(id)?.title;
  }

  listIssues() {
    return [...this.issues.keys()].map((id) => ({ uri: `issues://${id}`, name: `issue ${id}` }));
  }

  issueIds(value: string) {
    return [...this.issues.keys()].filter((id) => id.startsWith(value));
  }

  @prompt({ description: "Triage by label", args: { label: z.string() }, complete: { label: "labelsLike" } })
  triage({ label }: { label: string }) {
    return `Triage the ${label} issues`;
  }

  labelsLike(value: string, { arguments: known }: { arguments: Readonly<Record<string, string>> }) {
    return { values: this.labels.filter((label) => label.startsWith(value)), total: Object.keys(known).length };
  }

  @tool({ description: "Close an issue", input: { id: z.string() }, guard: "canWrite" })
  close({ id }: { id: string }) {
    const issue = this.issues.get(id);
    if (!issue) throw new Error(`no issue ${id}`);
    issue.open = false;
    return `closed ${id}`;
  }

  canWrite(ctx: RequestContext) {
    return !this.readOnly && ctx.requestId !== undefined;
  }
}

describe(`options that name methods run on the instance (${DIALECT})`, () => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`two instances with different state complete, list and guard differently (${protocolVersion})`, async () => {
      const mine = await createTestClient(new Tracker(["1", "12", "2"], ["bug", "build"]), { protocolVersion });
      const theirs = await createTestClient(new Tracker(["7"], ["docs"], true), { protocolVersion });
      const ref = { type: "ref/resource", uri: "issues://{id}" } as const;
      expect((await mine.complete(ref, { name: "id", value: "1" })).values).toEqual(["1", "12"]);
      expect((await theirs.complete(ref, { name: "id", value: "" })).values).toEqual(["7"]);
      const prompt = { type: "ref/prompt", name: "triage" } as const;
      expect(await mine.complete(prompt, { name: "label", value: "b" }, { other: "x" })).toMatchObject({
        values: ["bug", "build"],
        total: 1,
      });
      expect((await theirs.complete(prompt, { name: "label", value: "" })).values).toEqual(["docs"]);
      expect((await mine.listResources()).map((r) => r.uri)).toEqual(["issues://1", "issues://12", "issues://2"]);
      expect((await theirs.listResources()).map((r) => r.uri)).toEqual(["issues://7"]);
      expect((await mine.listTools()).map((t) => t.name)).toEqual(["close"]);
      expect(await mine.callTool("close", { id: "12" })).toMatchObject({ content: [{ text: "closed 12" }] });
      expect(await theirs.listTools()).toEqual([]);
      await expect(theirs.callTool("close", { id: "7" })).rejects.toThrow("Unknown tool: close");
    });
  }

  it("a subclass's override of a named method is the one that runs", async () => {
    class Filtered extends Tracker {
      override issueIds(value: string) {
        return super.issueIds(value).filter((id) => id.length > 1);
      }
    }
    const client = await createTestClient(new Filtered(["1", "12"], []));
    const ref = { type: "ref/resource", uri: "issues://{id}" } as const;
    expect((await client.complete(ref, { name: "id", value: "1" })).values).toEqual(["12"]);
  });

  it("a name that is no method of the class fails when the server is built", () => {
    class Typo extends McpServer {
      // @ts-expect-error: the class has no method "idz"
      @resource("items://{id}", { complete: { id: "idz" } })
      item({ id }: { id: string }) {
        return id;
      }
    }
    expect(() => new Typo().toServer()).toThrow(/its complete\.id names "idz", which is not a method of Typo/);
  });

  it("an arrow-function field or a getter that returns a function may be named, as the type check allows", async () => {
    class Fields extends McpServer {
      readonly ids = ["1", "12", "2"];
      @resource("items://{id}", { complete: { id: "idsLike" }, guard: "open" })
      item({ id }: { id: string }) {
        return id;
      }
      idsLike = (value: string) => this.ids.filter((id) => id.startsWith(value));
      // Read on the instance, never on the prototype (where `this.ids` does not exist).
      get open() {
        const count = this.ids.length;
        return () => count > 0;
      }
    }
    const client = await createTestClient(new Fields());
    const ref = { type: "ref/resource", uri: "items://{id}" } as const;
    expect((await client.complete(ref, { name: "id", value: "1" })).values).toEqual(["1", "12"]);
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(["items://{id}"]);
  });

  it("a base class's decorator may name a method only its subclasses define (declared abstract)", async () => {
    abstract class Guarded extends McpServer {
      @tool({ description: "Say hello", guard: "allowed" })
      hello() {
        return "hello";
      }
      abstract allowed(ctx: RequestContext): boolean;
    }
    class Open extends Guarded {
      allowed() {
        return true;
      }
    }
    class Closed extends Guarded {
      allowed() {
        return false;
      }
    }
    expect((await (await createTestClient(new Open())).listTools()).map((t) => t.name)).toEqual(["hello"]);
    expect(await (await createTestClient(new Closed())).listTools()).toEqual([]);
  });

  it("a mounted module's named methods run on the module's instance", async () => {
    const mine = createServer({ name: "mine", version: "1" }).mount("mine", new Tracker(["5", "51"], ["bug"]));
    const theirs = createServer({ name: "theirs", version: "1" }).mount("theirs", new Tracker(["7"], ["docs"], true));
    const client = await createTestClient(mine);
    const other = await createTestClient(theirs);
    const prompt = { type: "ref/prompt", name: "mine.triage" } as const;
    expect((await client.complete(prompt, { name: "label", value: "b" })).values).toEqual(["bug"]);
    const ref = { type: "ref/resource", uri: "issues://{id}" } as const;
    expect((await client.complete(ref, { name: "id", value: "5" })).values).toEqual(["5", "51"]);
    expect((await other.complete(ref, { name: "id", value: "" })).values).toEqual(["7"]);
    expect((await other.listResources()).map((resource) => resource.uri)).toEqual(["issues://7"]);
    expect(await other.listTools()).toEqual([]);
    expect((await client.callTool("mine.close", { id: "51" })).content).toEqual([{ type: "text", text: "closed 51" }]);
  });
});

// Compile-time checks: a method whose parameters do not fit its schema does not compile.
const Pair = { a: z.number(), b: z.string() };

export class TypeChecks extends McpServer {
  @tool({ description: "ok", input: { a: z.number() } })
  fine({ a }: { a: number }) {
    return a;
  }

  @tool({ description: "fewer fields read than given is fine", input: { a: z.number(), b: z.string() } })
  partial({ a }: { a: number }) {
    return a;
  }

  // @ts-expect-error: the schema gives a number, the method wants a string
  @tool({ description: "wrong", input: { a: z.number() } })
  wrongType({ a }: { a: string }) {
    return a;
  }

  // @ts-expect-error: the method needs a field the schema does not give
  @tool({ description: "missing", input: { a: z.number() } })
  missingField({ a, b }: { a: number; b: string }) {
    return a + b;
  }

  // @ts-expect-error: a fixed-URI resource's method gets the context, not variables
  @resource("fixed://x")
  fixed({ id }: { id: string }) {
    return id;
  }

  // @ts-expect-error: the template has no variable "name"
  @resource("notes://{id}")
  wrongVariable({ name }: { name: string }) {
    return name;
  }

  // @ts-expect-error: prompt arguments are strings
  @prompt({ args: { topic: z.string() } })
  wrongPrompt({ topic }: { topic: number }) {
    return String(topic);
  }

  // @ts-expect-error: a prompt returns text or messages, not a number
  @prompt({ description: "number" })
  numberPrompt() {
    return 42;
  }

  // @ts-expect-error: the method returns what the output schema does not allow
  @tool({ description: "lies", output: z.object({ count: z.number() }) })
  badOutput() {
    return { count: "many" };
  }

  @tool({ description: "tells the truth", output: z.object({ count: z.number() }) })
  goodOutput() {
    return { count: 1 };
  }

  // @ts-expect-error: without input a tool takes no arguments
  @tool({ description: "no input" })
  takesArguments({ a }: { a: number }) {
    return a;
  }

  @tool({ description: "no input, context only" })
  contextOnly(_args: Record<string, never>, ctx: RequestContext) {
    return ctx.requestId;
  }

  @resource("listed://{id}", { list: "listed" })
  listedNote({ id }: { id: string }) {
    return id;
  }

  listed() {
    return [{ uri: "listed://1", name: "one" }];
  }

  // @ts-expect-error: list must return resources ({ uri, name }[]), not strings
  @resource("strings://{id}", { list: "listedStrings" })
  wrongListReturn({ id }: { id: string }) {
    return id;
  }

  listedStrings() {
    return ["strings://1"];
  }

  @resource("completed://{id}", { complete: { id: "completeId" }, guard: "allowed" })
  completedNote({ id }: { id: string }) {
    return id;
  }

  completeId(value: string) {
    return [value];
  }

  allowed() {
    return true;
  }

  // @ts-expect-error: complete names a method the class does not have
  @resource("typo://{id}", { complete: { id: "completeIdz" } })
  typoCompleter({ id }: { id: string }) {
    return id;
  }

  // @ts-expect-error: a completer method returns values (string[] or { values }), not a number
  @prompt({ args: { topic: z.string() }, complete: { topic: "countTopics" } })
  wrongCompleter({ topic }: { topic: string }) {
    return topic;
  }

  countTopics() {
    return 3;
  }

  // @ts-expect-error: guard names a method the class does not have
  @tool({ description: "guarded by a typo", guard: "allowd" })
  typoGuard() {
    return 1;
  }

  // @ts-expect-error: a guard method returns a boolean
  @tool({ description: "guarded by a string", guard: "completeId" })
  stringGuard() {
    return 1;
  }

  // @ts-expect-error: Args of another schema, with a field this input does not give
  @tool({ description: "Args of another schema", input: { a: z.number() } })
  otherArgs({ a, b }: Args<typeof Pair>) {
    return a + b;
  }
}

export class NotAServer {
  // @ts-expect-error: decorators belong on McpServer subclasses
  @tool({ description: "x" })
  x() {
    return 1;
  }
}

// ── Middleware, guards and modules on server classes ──

const seen: string[] = [];

@use(async (operation, next) => {
  seen.push(`class before ${operation.method}`);
  const result = await next();
  seen.push(`class after ${operation.method}`);
  return result;
})
class Guarded extends McpServer {
  @use((operation, next) => {
    seen.push(`method ${operation.name}`);
    return next();
  })
  @tool({ description: "Open to all" })
  open() {
    return "open";
  }

  @tool({ description: "Admins only", guard: (ctx) => ctx.auth?.scopes.includes("admin") === true })
  wipe() {
    return "wiped";
  }
}

class Composed extends McpServer {
  constructor() {
    super({ mount: { guarded: new Guarded() } });
  }

  @tool({ description: "The parent's own" })
  own() {
    return "own";
  }
}

describe(`middleware, guards and modules (${DIALECT})`, () => {
  it("@use on the class runs around every operation; @use on a method only around that method's", async () => {
    seen.length = 0;
    const client = await createTestClient(new Guarded());
    await client.callTool("open");
    expect(seen).toEqual(["class before tools/call", "method open", "class after tools/call"]);
    seen.length = 0;
    await client.listTools();
    expect(seen).toEqual(["class before tools/list", "class after tools/list"]);
  });

  it("a guard hides a method from callers it refuses, in lists and calls", async () => {
    const anonymous = await createTestClient(new Guarded());
    expect((await anonymous.listTools()).map((t) => t.name)).toEqual(["open"]);
    await expect(anonymous.callTool("wipe")).rejects.toThrow("Unknown tool: wipe");
    const admin = await createTestClient(new Guarded(), { auth: { subject: "root", scopes: ["admin"] } });
    expect((await admin.listTools()).map((t) => t.name)).toEqual(["open", "wipe"]);
  });

  it("super({ mount }) serves another class as a module under its prefix", async () => {
    const client = await createTestClient(new Composed(), { auth: { subject: "root", scopes: ["admin"] } });
    expect((await client.listTools()).map((t) => t.name)).toEqual(["own", "guarded.open", "guarded.wipe"]);
    expect(await client.callTool("guarded.open")).toMatchObject({ content: [{ text: "open" }] });
  });
});
