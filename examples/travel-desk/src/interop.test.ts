import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  Client,
  type ClientCapabilities,
  isInputRequiredResult,
  type JSONRPCMessage,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";

// Build first (npx -y pnpm@12.4.2 run build): the official client drives the compiled server over stdio.
const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const DATE = "2026-09-14";
const FULL: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };

const folder = mkdtempSync(join(tmpdir(), "travel-desk-interop-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Offer {
  id: string;
  airline: string;
  flight: string;
}

type Mode = "legacy" | { pin: "2026-07-28" };
type Answer = { action: "accept"; content: { seat: string; meal?: string } } | { action: "decline" | "cancel" };

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/** A client of the official SDK, spawning the built server, with handlers that answer like a user and a model. */
async function connect(mode: Mode, capabilities: ClientCapabilities = FULL, setup?: (client: Client) => void) {
  const client = new Client(
    { name: "travel-desk-interop", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode } },
  );
  const state = { answer: { action: "accept", content: { seat: "window" } } as Answer, root: join(folder, "default") };
  if (capabilities.elicitation) client.setRequestHandler("elicitation/create", async () => state.answer);
  if (capabilities.sampling) {
    client.setRequestHandler("sampling/createMessage", async (request) => ({
      role: "assistant" as const,
      model: "interop-model",
      content: {
        type: "text" as const,
        text: `Trip: ${JSON.stringify(request.params.messages.length)} message(s) read.`,
      },
    }));
  }
  if (capabilities.roots) {
    client.setRequestHandler("roots/list", async () => ({
      roots: [{ uri: pathToFileURL(state.root).href, name: "Trips" }],
    }));
  }
  setup?.(client);
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" });
  // A tap: the client calls a transport's earlier onmessage before its own dispatch.
  const wire: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    wire.push(message);
  };
  await client.connect(transport);
  open.push(client);
  return { client, state, wire };
}

function sent(wire: JSONRPCMessage[], method: string): Record<string, unknown>[] {
  return wire.flatMap((message) =>
    "method" in message && message.method === method && !("id" in message) ? [message.params ?? {}] : [],
  );
}

async function offers(client: Client, from = "LHR", to = "JFK"): Promise<Offer[]> {
  const found = await client.callTool({ name: "search_flights", arguments: { from, to, date: DATE } });
  return (found.structuredContent as { offers: Offer[] }).offers;
}

async function book(client: Client, passenger = "Ana Lima"): Promise<string> {
  const [offer] = await offers(client);
  const booked = await client.callTool({ name: "book_flight", arguments: { offerId: offer?.id, passenger } });
  return (booked.structuredContent as { bookingId: string }).bookingId;
}

function json(result: { contents: unknown[] }): unknown {
  return JSON.parse((result.contents[0] as { text: string }).text);
}

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("travel desk with the official client over stdio (%s)", (_era, mode) => {
  const modern = mode !== "legacy";

  it("negotiates the era and sees every capability", async () => {
    const { client } = await connect(mode);
    expect(client.getNegotiatedProtocolVersion()).toBe(modern ? "2026-07-28" : "2025-11-25");
    expect(client.getServerCapabilities()).toMatchObject({
      logging: {},
      completions: {},
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });

  it("reports search progress through onprogress", async () => {
    const { client, wire } = await connect(mode);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "search_flights", arguments: { from: "LHR", to: "KEF", date: DATE } },
      { onprogress: (progress) => seen.push(progress) },
    );
    expect((result.structuredContent as { offers: Offer[] }).offers).toHaveLength(3);
    // Every notification precedes the reply on the wire.
    const progress = sent(wire, "notifications/progress").map(({ progressToken: _, ...rest }) => rest);
    expect(progress).toEqual([
      { progress: 0, total: 4, message: "Searching" },
      { progress: 1, total: 4, message: "Northwind Air answered" },
      { progress: 2, total: 4, message: "Cobalt Airways answered" },
      { progress: 3, total: 4, message: "Sunline answered" },
      { progress: 4, total: 4, message: "Aurora Air answered" },
    ]);
    // The client dispatches notifications a microtask late but drops its progress handler as soon as the reply
    // is read: those that arrive in the same read as the reply never reach onprogress (SDK 2.4.0).
    expect(seen).toEqual(progress.slice(0, seen.length));
  });

  it("logs to the client at the level it asked for", async () => {
    const logs: { level: string; data: unknown }[] = [];
    const { client, wire } = await connect(mode, FULL, (c) =>
      c.setNotificationHandler("notifications/message", (n) => {
        logs.push({ level: n.params.level, data: n.params.data });
      }),
    );
    const kef = { name: "search_flights", arguments: { from: "LHR", to: "KEF", date: DATE } };
    if (!modern) {
      // Handshake era: everything until the client sets a level for the connection.
      await client.callTool(kef);
      await until(() => (logs.length >= 2 ? true : undefined), "two log messages");
      expect(logs.map((log) => log.level)).toEqual(["info", "warning"]);
      await client.setLoggingLevel("warning");
      logs.length = 0;
      await client.callTool(kef);
      await until(() => logs[0], "the warning");
      expect(logs).toEqual([{ level: "warning", data: "Aurora Air does not fly LHR→KEF; skipped" }]);
      return;
    }
    // 2026-07-28: logging/setLevel is gone; each request opts in through _meta.
    await expect(client.setLoggingLevel("warning")).rejects.toSatisfy(
      (error) => error instanceof SdkError && error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion,
    );
    await client.callTool(kef);
    expect(sent(wire, "notifications/message")).toEqual([]);
    await client.callTool({ ...kef, _meta: { [LOG_LEVEL_META_KEY]: "warning" } });
    await until(() => logs[0], "the warning");
    expect(logs).toEqual([{ level: "warning", data: "Aurora Air does not fly LHR→KEF; skipped" }]);
    logs.length = 0;
    await client.callTool({ ...kef, _meta: { [LOG_LEVEL_META_KEY]: "info" } });
    await until(() => (logs.length >= 2 ? true : undefined), "two log messages");
    expect(logs.map((log) => log.level)).toEqual(["info", "warning"]);
  });

  it("books through the client's elicitation handler, and books nothing on decline", async () => {
    const { client, state } = await connect(mode);
    const [offer] = await offers(client);
    state.answer = { action: "accept", content: { seat: "aisle", meal: "vegetarian" } };
    const booked = await client.callTool({ name: "book_flight", arguments: { offerId: offer?.id, passenger: "Ana" } });
    expect(booked.structuredContent).toEqual({ bookingId: "TD-1001", seat: "aisle", meal: "vegetarian" });
    const read = await client.readResource({ uri: "bookings://TD-1001" }, { cacheMode: "bypass" });
    expect(json(read)).toMatchObject({ id: "TD-1001", seat: "aisle", status: "confirmed" });

    state.answer = { action: "decline" };
    const declined = await client.callTool({
      name: "book_flight",
      arguments: { offerId: offer?.id, passenger: "Ben" },
    });
    expect(declined.content[0]).toMatchObject({ text: expect.stringMatching(/^Not booked/) });
    const listed = await client.callTool({ name: "list_bookings", arguments: {} });
    expect((listed.structuredContent as { bookings: unknown[] }).bookings).toHaveLength(1);
  });

  it("has the client's model write the summary, and falls back without sampling", async () => {
    const { client } = await connect(mode);
    const id = await book(client);
    const summary = await client.callTool({ name: "trip_summary", arguments: { bookingId: id } });
    expect(summary.structuredContent).toEqual({ summary: "Trip: 1 message(s) read.", writtenBy: "interop-model" });

    const { client: plain } = await connect(mode, { elicitation: { form: {} } });
    const plainId = await book(plain);
    const fallback = await plain.callTool({ name: "trip_summary", arguments: { bookingId: plainId } });
    expect(fallback.structuredContent).toMatchObject({ writtenBy: "travel-desk" });
  });

  it("saves the itinerary into the folder the client's roots name", async () => {
    const { client, state } = await connect(mode);
    state.root = join(folder, modern ? "modern" : "legacy");
    const id = await book(client);
    const saved = await client.callTool({ name: "save_itinerary", arguments: { bookingId: id } });
    const path = join(state.root, "itineraries", `${id}.ics`);
    expect(saved.structuredContent).toEqual({ saved: true, path, root: "Trips" });
    expect(existsSync(path) && readFileSync(path, "utf8")).toContain("SUMMARY:");
  });

  it("completes airport codes for the prompt and the template", async () => {
    const { client } = await connect(mode);
    const all = await client.complete({
      ref: { type: "ref/prompt", name: "plan_trip" },
      argument: { name: "from", value: "" },
    });
    expect(all.completion.values).toHaveLength(100);
    expect(all.completion).toMatchObject({ total: 156, hasMore: true });
    const to = await client.complete({
      ref: { type: "ref/prompt", name: "plan_trip" },
      argument: { name: "to", value: "lon" },
      context: { arguments: { from: "LHR" } },
    });
    expect(to.completion).toEqual({ values: ["LGW"], total: 1, hasMore: false });
    const code = await client.complete({
      ref: { type: "ref/resource", uri: "airports://{code}" },
      argument: { name: "code", value: "rey" },
    });
    expect(code.completion.values).toEqual(["KEF"]);
    const prompt = await client.getPrompt({ name: "plan_trip", arguments: { from: "LHR", to: "KEF" } });
    expect(prompt.messages[0]?.content).toMatchObject({ text: expect.stringContaining("from LHR to KEF") });
  });

  it("tells the client when cancel_booking appears and goes", async () => {
    let changes = 0;
    const { client } = await connect(mode, FULL, (c) =>
      c.setNotificationHandler("notifications/tools/list_changed", () => {
        changes++;
      }),
    );
    const subscription = modern ? await client.listen({ toolsListChanged: true }) : undefined;
    if (modern) expect(subscription?.honoredFilter).toMatchObject({ toolsListChanged: true });
    const names = async () => (await client.listTools(undefined, { cacheMode: "bypass" })).tools.map((t) => t.name);
    expect(await names()).not.toContain("cancel_booking");
    const id = await book(client);
    await until(() => (changes >= 1 ? true : undefined), "tools/list_changed");
    expect(await names()).toContain("cancel_booking");
    await client.callTool({ name: "cancel_booking", arguments: { bookingId: id } });
    await until(() => (changes >= 2 ? true : undefined), "a second tools/list_changed");
    expect(await names()).not.toContain("cancel_booking");
    await subscription?.close();
  });

  it("notifies a subscriber when its booking changes status", async () => {
    const updated: string[] = [];
    const { client } = await connect(mode, FULL, (c) =>
      c.setNotificationHandler("notifications/resources/updated", (n) => {
        updated.push(n.params.uri);
      }),
    );
    const watched = await book(client, "Ana");
    const other = await book(client, "Ben");
    const uri = `bookings://${watched}`;
    const subscription = modern ? await client.listen({ resourceSubscriptions: [uri] }) : undefined;
    if (!modern) await client.subscribeResource({ uri });
    await client.callTool({ name: "check_in", arguments: { bookingId: other } });
    await client.callTool({ name: "check_in", arguments: { bookingId: watched } });
    await until(() => updated[0], "resources/updated");
    expect(updated).toEqual(["bookings://TD-1001"]);
    const read = await client.readResource({ uri }, { cacheMode: "bypass" });
    expect(json(read)).toMatchObject({ status: "checked-in" });
    await subscription?.close();
  });

  it("pages tools with cursors and refuses a forged one", async () => {
    const { client } = await connect(mode);
    const first = await client.request({ method: "tools/list", params: {} });
    expect(first.tools).toHaveLength(5);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools.map((t) => t.name)).toEqual(["save_itinerary"]);
    expect(second.nextCursor).toBeUndefined();
    // Without a cursor the client walks every page itself.
    expect((await client.listTools(undefined, { cacheMode: "bypass" })).tools).toHaveLength(6);
    await expect(client.listTools({ cursor: "eyJrIjoidG9vbHMiLCJvIjowfQ" })).rejects.toSatisfy(
      (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams,
    );
  });

  it("stops a long search when the client aborts the call", async () => {
    const { client } = await connect(mode);
    const controller = new AbortController();
    const call = client.callTool(
      { name: "search_flights", arguments: { from: "LHR", to: "JFK", date: DATE, includeCharters: true } },
      {
        signal: controller.signal,
        // The scheduled airlines have answered; the charter broker takes 30 s.
        onprogress: (progress) => {
          if (progress.progress === 4) controller.abort("the user changed their mind");
        },
      },
    );
    await expect(call).rejects.toBeDefined();
    const searches = await until(async () => {
      const read = await client.readResource({ uri: "travel://searches" }, { cacheMode: "bypass" });
      const { searches } = json(read) as { searches: { status: string }[] };
      return searches[0]?.status === "running" ? undefined : searches;
    }, "the search to stop");
    expect(searches).toEqual([
      { id: "S1", route: "LHR-JFK", date: DATE, status: "cancelled", airlinesSearched: 4, airlinesTotal: 5 },
    ]);
  });
});

describe("travel desk with the official client: what only one era has", () => {
  it("handshake era: cancelling the booking call cancels the server's pending elicitation", async () => {
    const controller = new AbortController();
    let elicitationSignal: AbortSignal | undefined;
    const { client } = await connect("legacy", { elicitation: { form: {} } }, (c) =>
      c.setRequestHandler("elicitation/create", (_request, ctx) => {
        elicitationSignal = ctx.mcpReq.signal;
        controller.abort("the user walked away");
        // The user never answers; the server is to withdraw the question.
        return new Promise((resolve) =>
          ctx.mcpReq.signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
        );
      }),
    );
    const [offer] = await offers(client);
    const call = client.callTool(
      { name: "book_flight", arguments: { offerId: offer?.id, passenger: "Ana" } },
      { signal: controller.signal },
    );
    await expect(call).rejects.toBeDefined();
    const signal = await until(() => elicitationSignal, "the elicitation request");
    await until(() => (signal.aborted ? true : undefined), "notifications/cancelled for the elicitation");
    const listed = await client.callTool({ name: "list_bookings", arguments: {} });
    expect(listed.structuredContent).toEqual({ bookings: [] });
  });

  it("2026-07-28: a client that fulfils rounds by hand sees the input_required round", async () => {
    const client = new Client(
      { name: "travel-desk-manual", version: "1.0.0" },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    open.push(client);
    const [offer] = await offers(client);
    const params = { name: "book_flight", arguments: { offerId: offer?.id, passenger: "Ana" } };
    const first = await client.request({ method: "tools/call", params }, { allowInputRequired: true });
    if (!isInputRequiredResult(first)) throw new Error("expected an input_required round");
    expect(first.inputRequests?.["elicit-1"]).toMatchObject({
      method: "elicitation/create",
      params: { mode: "form", requestedSchema: { properties: { seat: { enum: ["window", "aisle", "middle"] } } } },
    });
    const done = await client.request({
      method: "tools/call",
      params: {
        ...params,
        inputResponses: { "elicit-1": { action: "accept", content: { seat: "middle" } } },
        requestState: first.requestState,
      },
    });
    expect(done.structuredContent).toEqual({ bookingId: "TD-1001", seat: "middle", meal: "standard" });
  });
});
