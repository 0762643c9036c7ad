// Options that name a method of the class (list, complete, guard; definitions.ts) run it on the instance.
// Run in both decorator dialects (see dialect-suite.ts).
import { createServer, type RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

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
