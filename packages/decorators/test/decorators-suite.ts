// @tool, @resource and @prompt (decorators.ts): what a decorated method publishes, and how it is called.
// Run in both decorator dialects (see dialect-suite.ts).
import type { RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

type Note = { title: string; body: string };

export class Notes extends McpServer {
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

export async function texts(
  server: McpServer,
  name: string,
  args: Record<string, unknown> = {},
  protocolVersion = "2026-07-28" as const,
) {
  const client = await createTestClient(server, { protocolVersion });
  return client.callTool(name, args);
}

describe(`decorators (${DIALECT})`, () => {
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
});
