import { ResourceNotFoundError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { PNG } from "./media.js";
import { connect, ERAS, waitFor } from "./peer.test-util.js";

const WATCHED = "test://watched-resource";

describe.each(ERAS)("resources, prompts and completion over stdio (%s)", (_era, mode) => {
  it("lists and reads the resources and the template", async () => {
    const { client, close } = await connect(mode);
    try {
      const { resources: all } = await client.listResources(undefined, { cacheMode: "bypass" });
      // The skills' files follow (skills.test.ts).
      const resources = all.filter((resource) => resource.uri.startsWith("test://"));
      expect(resources).toEqual([
        {
          uri: "test://static-text",
          name: "static-text",
          title: "Static Text Resource",
          description: "A static text resource for testing",
          mimeType: "text/plain",
        },
        expect.objectContaining({ uri: "test://static-binary", name: "static-binary", mimeType: "image/png" }),
        expect.objectContaining({ uri: WATCHED, name: "watched-resource", title: "Watched Resource" }),
        expect.objectContaining({ uri: "test://stateless-static-text", title: "Stateless Static Text" }),
      ]);
      const { resourceTemplates } = await client.listResourceTemplates(undefined, { cacheMode: "bypass" });
      expect(resourceTemplates).toEqual([
        {
          uriTemplate: "test://template/{id}/data",
          name: "template",
          title: "Resource Template",
          description: "A resource template with parameter substitution",
          mimeType: "application/json",
        },
      ]);
      const read = async (uri: string) => (await client.readResource({ uri }, { cacheMode: "bypass" })).contents;
      expect(await read("test://static-text")).toEqual([
        { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
      ]);
      expect(await read("test://static-binary")).toEqual([
        { uri: "test://static-binary", mimeType: "image/png", blob: PNG },
      ]);
      expect(await read("test://template/123/data")).toEqual([
        {
          uri: "test://template/123/data",
          mimeType: "application/json",
          text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
        },
      ]);
      expect(await read(WATCHED)).toEqual([{ uri: WATCHED, mimeType: "text/plain", text: "Watched resource content" }]);
    } finally {
      await close();
    }
  });

  it("answers an unknown resource with an error naming the URI", async () => {
    const { client, close } = await connect(mode);
    try {
      const uri = "test://nonexistent-resource-for-conformance-testing";
      const error = await client.readResource({ uri }, { cacheMode: "bypass" }).catch((thrown: unknown) => thrown);
      // The client folds -32002 (before 2026-07-28) into its ResourceNotFoundError; wire.test.ts checks each code.
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect(error).toMatchObject({ data: { uri } });
    } finally {
      await close();
    }
  });

  it("lists and gets the prompts", async () => {
    const { client, close } = await connect(mode);
    try {
      const { prompts } = await client.listPrompts(undefined, { cacheMode: "bypass" });
      expect(prompts.map((p) => p.name)).toEqual([
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
      ]);
      for (const p of prompts) expect(p.description?.length, p.name).toBeGreaterThan(0);
      expect(prompts[1]?.arguments).toEqual([
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ]);
      const get = async (name: string, args?: Record<string, string>) =>
        (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) })).messages;
      expect(await get("test_simple_prompt")).toEqual([
        { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
      ]);
      expect(await get("test_prompt_with_arguments", { arg1: "testValue1", arg2: "testValue2" })).toEqual([
        {
          role: "user",
          content: { type: "text", text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" },
        },
      ]);
      expect(await get("test_prompt_with_embedded_resource", { resourceUri: "test://example-resource" })).toEqual([
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: "test://example-resource",
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ]);
      expect(await get("test_prompt_with_image")).toEqual([
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ]);
    } finally {
      await close();
    }
  });

  it("completes arg1 of test_prompt_with_arguments", async () => {
    const { client, close } = await connect(mode);
    try {
      expect(client.getServerCapabilities()?.completions).toEqual({});
      const { completion } = await client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "test" },
      });
      expect(completion).toEqual({ values: ["testValue1", "test"], total: 2, hasMore: false });
    } finally {
      await close();
    }
  });
});

describe("resource updates for test://watched-resource (every 3 s)", () => {
  it("handshake era: resources/subscribe, then notifications/resources/updated; unsubscribe answers {}", async () => {
    const { client, close } = await connect("legacy");
    try {
      const updated = waitFor<string>("notifications/resources/updated", (push) =>
        client.setNotificationHandler("notifications/resources/updated", (n) => push(n.params.uri)),
      );
      expect(await client.request({ method: "resources/subscribe", params: { uri: WATCHED } })).toEqual({});
      expect(await updated).toBe(WATCHED);
      expect(await client.request({ method: "resources/unsubscribe", params: { uri: WATCHED } })).toEqual({});
    } finally {
      await close();
    }
  });

  it("stateless era: subscriptions/listen resourceSubscriptions, tagged with the subscription id", async () => {
    const { client, close } = await connect({ pin: "2026-07-28" });
    try {
      const updated = waitFor<Record<string, unknown>>("notifications/resources/updated", (push) =>
        client.setNotificationHandler("notifications/resources/updated", (n) => push(n.params)),
      );
      const subscription = await client.listen({ resourceSubscriptions: [WATCHED] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [WATCHED] });
      expect(await updated).toMatchObject({
        uri: WATCHED,
        _meta: { "io.modelcontextprotocol/subscriptionId": expect.anything() },
      });
      await subscription.close();
    } finally {
      await close();
    }
  });
});

describe("handshake-era utilities", () => {
  it("logging/setLevel and ping answer exactly {}", async () => {
    const { client, close } = await connect("legacy");
    try {
      expect(await client.request({ method: "logging/setLevel", params: { level: "info" } })).toEqual({});
      expect(await client.request({ method: "ping" })).toEqual({});
      expect(client.getServerCapabilities()).toEqual({
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
        // 2025-11-25 declares its own tasks: the server has tools that run as tasks.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        // The skills extension is defined on resources alone, so it is declared in the handshake era too.
        extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
      });
    } finally {
      await close();
    }
  });
});
