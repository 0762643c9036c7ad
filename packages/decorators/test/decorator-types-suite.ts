// The decorators' types (decorator-types.ts, decorators.ts): what does not fit does not compile. tsconfig.tc39.json
// and tsconfig.legacy.json type-check this file in each dialect; the classes are also defined when the suites run.
import type { RequestContext } from "@toolsmith/core";
import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";

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
