import { describe, expect, it } from "vitest";
import type { AuthInfo } from "../context/context.js";
import type { Engine, ServerSignal } from "../engine/engine.js";
import type { Guard } from "../registry/guards.js";
import { createTestClient } from "../testing/client.js";
import type { Announcement } from "./engine-link.js";
import type { Server } from "./servable.js";
import { createServer } from "./server.js";
import { onAnnounce } from "./server-access.js";
import { mayHear, mayRead } from "./stored-principal.js";

// A server's engine: made when first used, started once, and (when shared) what carries a change made on one
// process to the others: handle ops applied alike, list changes and resource updates told to every listen stream.

type HandleSignal = Extract<ServerSignal, { type: "handle" }>;

// Every method a test does not expect to be called.
function unused(node: string): Engine {
  const no = (name: string) => () => {
    throw new Error(`${node}: ${name} was not expected`);
  };
  return {
    node,
    shared: false,
    start: no("start"),
    close: no("close"),
    createSession: no("createSession"),
    loadSession: no("loadSession"),
    changeSession: no("changeSession"),
    deleteSession: no("deleteSession"),
    initializedSessions: no("initializedSessions"),
    subscribers: no("subscribers"),
    sessionIds: no("sessionIds"),
    append: no("append"),
    replay: no("replay"),
    signal: no("signal"),
    takeClientLines: no("takeClientLines"),
    takeCancels: no("takeCancels"),
    follow: no("follow"),
    broadcast: no("broadcast"),
    onBroadcast: no("onBroadcast"),
    handleOps: no("handleOps"),
    onResume: no("onResume"),
    running: no("running"),
    finished: no("finished"),
    onOrphan: no("onOrphan"),
    createTask: no("createTask"),
    loadTask: no("loadTask"),
    changeTask: no("changeTask"),
    answerTask: no("answerTask"),
    takeAnswers: no("takeAnswers"),
    followTask: no("followTask"),
    taskRunning: no("taskRunning"),
    taskFinished: no("taskFinished"),
    setValue: no("setValue"),
    getValue: no("getValue"),
    takeValue: no("takeValue"),
    deleteValue: no("deleteValue"),
    countUp: no("countUp"),
    readRecord: no("readRecord"),
    writeRecord: no("writeRecord"),
    swapRecord: no("swapRecord"),
    deleteRecord: no("deleteRecord"),
    listRecords: no("listRecords"),
    clearRecords: no("clearRecords"),
    // A started server watches for other processes' orphaned tasks.
    onOrphanTask: () => () => {},
  };
}

/** Engines of one server that share a tiny bus, as processes sharing Redis would: each hears the others' broadcasts. */
function sharedBus() {
  const ops: HandleSignal[] = [];
  const hearers = new Map<Engine, Set<(signal: ServerSignal) => void>>();
  const sent: ServerSignal[] = [];
  const engine = (node: string): Engine => {
    const listeners = new Set<(signal: ServerSignal) => void>();
    const made: Engine = {
      ...unused(node),
      shared: true,
      start: () => {},
      broadcast(signal) {
        sent.push(signal);
        if (signal.type === "handle") ops.push(signal);
        for (const [other, heard] of hearers) {
          if (other === made) continue;
          for (const listener of heard) queueMicrotask(() => listener(signal));
        }
      },
      onBroadcast(listener) {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      },
      handleOps: () => [...ops],
      onResume: () => () => {},
    };
    hearers.set(made, listeners);
    return made;
  };
  return { engine, sent };
}

const ADMIN: Guard = (ctx) => ctx.auth?.scopes.includes("admin") ?? false;
const ALICE: AuthInfo = { subject: "alice", scopes: [] };
const BOB: AuthInfo = { subject: "bob", scopes: [] };

/** One server's code, as every process runs it. */
function app(engine?: Engine): Server {
  const server = createServer({ name: "cluster", version: "1", engine });
  server.tool({ name: "alpha", description: "Alpha", handler: () => "a" });
  server.tool({ name: "beta", description: "Beta", handler: () => "b" });
  server.tool({ name: "wipe", description: "Admins only", guard: ADMIN, handler: () => "wiped" });
  server.resource({ uri: "docs://a", handler: () => "a" });
  server.resource({ uri: "docs://secret", guard: (ctx) => ctx.auth?.subject === "alice", handler: () => "s" });
  return server;
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe("server.engine and startEngine()", () => {
  it("without one configured, an in-memory engine, made once; startEngine is synchronous and idempotent", () => {
    const server = app();
    const engine = server.engine;
    expect(engine.shared).toBe(false);
    expect(server.engine).toBe(engine);
    expect(server.startEngine()).toBeUndefined();
    expect(server.startEngine()).toBeUndefined();
  });

  it("a configured engine is started once, named after the server, even when starting takes time", async () => {
    const starts: unknown[] = [];
    let fail = true;
    const engine: Engine = {
      ...unused("slow"),
      start: (server) => {
        starts.push(server);
        return fail ? Promise.reject(new Error("not yet")) : Promise.resolve();
      },
    };
    const server = app(engine);
    expect(server.engine).toBe(engine);
    await expect(server.startEngine()).rejects.toThrow("not yet");
    fail = false;
    const first = server.startEngine();
    expect(server.startEngine()).toBe(first);
    await first;
    expect(server.startEngine()).toBeUndefined();
    expect(starts).toEqual([
      { name: "cluster", log: expect.any(Function) },
      { name: "cluster", log: expect.any(Function) },
    ]);
  });

  it("what an engine says as it starts goes to the server's own log", async () => {
    const heard: unknown[] = [];
    const engine: Engine = {
      ...unused("speaking"),
      start: (owner) => owner.log?.({ level: "warning", message: "Redis may evict" }),
    };
    const server = app(engine);
    server.setLogger((entry) => heard.push(entry));
    await server.startEngine();
    expect(heard).toEqual([{ level: "warning", message: "Redis may evict" }]);
  });

  it("a tools/call asks nothing of the engine", async () => {
    const server = app(unused("untouchable"));
    const client = await createTestClient(server);
    expect((await client.callTool("alpha")).content).toEqual([{ type: "text", text: "a" }]);
  });
});

describe("what a process announces to its sessions, with a shared engine", () => {
  it("not the registrations it makes before its engine has started (every process makes them alike), only later changes", async () => {
    const bus = sharedBus();
    let started!: () => void;
    const engine: Engine = { ...bus.engine("late"), start: () => new Promise<void>((resolve) => (started = resolve)) };
    const server = app(engine);
    const heard: Announcement[] = [];
    onAnnounce(server, (announcement) => heard.push(announcement));
    const starting = server.startEngine();
    // The registrations' list change is told once the current task's changes are made: still before the start.
    await Promise.resolve();
    await Promise.resolve();
    started();
    await starting;
    server.tool({ name: "gamma", description: "Gamma", handler: () => "g" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([expect.objectContaining({ type: "listChanged", kind: "tools", names: ["gamma"] })]);
  });
});

describe("onAnnounce, mayHear, mayRead (@toolsmith/core/internal)", () => {
  it("hears each batch of list changes with its names and audience, and each resource update", async () => {
    const server = app();
    await Promise.resolve();
    const heard: Announcement[] = [];
    const stop = onAnnounce(server, (announcement) => heard.push(announcement));
    server.tool({ name: "gamma", description: "Gamma", handler: () => "g" });
    server.registered("tool", "alpha")?.disable();
    server.registered("tool", "wipe")?.disable();
    await Promise.resolve();
    expect(heard).toEqual([
      { type: "listChanged", kind: "tools", names: ["gamma", "alpha", "wipe"], audience: undefined },
    ]);
    server.registered("tool", "wipe")?.enable();
    server.resourceUpdated("docs://a");
    await Promise.resolve();
    expect(heard.slice(1)).toEqual([
      { type: "resourceUpdated", uri: "docs://a" },
      { type: "listChanged", kind: "tools", names: ["wipe"], audience: [ADMIN] },
    ]);
    stop();
    server.resourceUpdated("docs://a");
    expect(heard).toHaveLength(3);
  });

  it("a mounted module's changes announce through its parent, named as the parent names them", async () => {
    const module = createServer({ name: "gh", version: "1" });
    module.tool({ name: "issue", description: "Issue", handler: () => "i" });
    const parent = createServer({ name: "app", version: "1" }).mount("gh", module);
    await Promise.resolve();
    const heard: Announcement[] = [];
    onAnnounce(parent, (announcement) => heard.push(announcement));
    module.registered("tool", "issue")?.disable();
    module.resourceUpdated("gh://x");
    await Promise.resolve();
    expect(heard).toEqual([
      { type: "resourceUpdated", uri: "gh://x" },
      { type: "listChanged", kind: "tools", names: ["gh.issue"], audience: undefined },
    ]);
  });

  it("decide for a stored principal as guards decide for a live caller", () => {
    const server = app();
    expect(mayHear(server, undefined, undefined)).toBe(true);
    expect(mayHear(server, [ADMIN], { subject: "root", scopes: ["admin"] })).toBe(true);
    expect(mayHear(server, [ADMIN], { subject: "eve", scopes: [] })).toBe(false);
    expect(mayHear(server, [ADMIN], undefined)).toBe(false);
    const byClient: Guard = (ctx) => ctx.auth?.clientId === "cli";
    expect(mayHear(server, [byClient], { subject: "x", scopes: [], clientId: "cli" })).toBe(true);
    expect(mayRead(server, "docs://secret", { subject: "alice", scopes: [] })).toBe(true);
    expect(mayRead(server, "docs://secret", { subject: "bob", scopes: [] })).toBe(false);
    expect(mayRead(server, "docs://secret", undefined)).toBe(false);
    expect(mayRead(server, "docs://a", undefined)).toBe(true);
    expect(mayRead(server, "docs://none", undefined)).toBe(false);
  });
});

describe("a shared engine: two processes of one server", () => {
  async function cluster() {
    const bus = sharedBus();
    const a = app(bus.engine("a"));
    const b = app(bus.engine("b"));
    a.startEngine();
    b.startEngine();
    return { bus, a, b };
  }

  it("a tool disabled on A: B's listen stream hears it exactly once, and B's tools/list agrees", async () => {
    const { a, b } = await cluster();
    const onB = await createTestClient(b);
    const stream = await onB.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    const onA = await createTestClient(a);
    const streamOnA = await onA.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    a.registered("tool", "alpha")?.disable();
    expect((await stream.next()).method).toBe("notifications/tools/list_changed");
    expect(names(await onB.listTools())).toEqual(["beta"]);
    expect((await streamOnA.next()).method).toBe("notifications/tools/list_changed");
    // What comes next on each stream is the next change, not the same one again.
    a.resourceUpdated("docs://a");
    expect((await stream.next()).method).toBe("notifications/resources/updated");
    expect((await streamOnA.next()).method).toBe("notifications/resources/updated");
    expect(stream.notifications.map((n) => n.method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/resources/updated",
    ]);
    expect(b.registered("tool", "alpha")?.enabled).toBe(false);
  });

  it("B does not broadcast again what it heard; a guarded tool's change reaches only whom its guard allows", async () => {
    const { bus, a, b } = await cluster();
    const admin = await createTestClient(b, { auth: { subject: "root", scopes: ["admin"] } });
    const user = await createTestClient(b, { auth: BOB });
    const adminStream = await admin.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    const userStream = await user.listen({ toolsListChanged: true, resourceSubscriptions: ["docs://a"] });
    a.registered("tool", "wipe")?.remove();
    expect((await adminStream.next()).method).toBe("notifications/tools/list_changed");
    a.resourceUpdated("docs://a");
    expect((await userStream.next()).method).toBe("notifications/resources/updated");
    expect((await adminStream.next()).method).toBe("notifications/resources/updated");
    expect(b.registered("tool", "wipe")).toBeUndefined();
    expect(bus.sent).toEqual([
      { type: "handle", kind: "tools", name: "wipe", op: "remove" },
      { type: "listChanged", kind: "tools", names: ["wipe"] },
      { type: "resourceUpdated", uri: "docs://a" },
    ]);
  });

  it("a resource update on A reaches B's stream that subscribed, and not one whose guard refuses", async () => {
    const { a, b } = await cluster();
    const alice = await (await createTestClient(b, { auth: ALICE })).listen({
      resourceSubscriptions: ["docs://secret", "docs://a"],
    });
    const bob = await (await createTestClient(b, { auth: BOB })).listen({
      resourceSubscriptions: ["docs://secret", "docs://a"],
    });
    a.resourceUpdated("docs://secret");
    a.resourceUpdated("docs://a");
    expect((await alice.next()).params?.uri).toBe("docs://secret");
    expect((await bob.next()).params?.uri).toBe("docs://a");
    expect((await alice.next()).params?.uri).toBe("docs://a");
  });

  it("a process started after the op applies it from the kept handle ops", async () => {
    const { bus, a } = await cluster();
    a.registered("tool", "alpha")?.disable();
    a.registered("tool", "beta")?.disable();
    a.registered("tool", "beta")?.enable();
    const late = app(bus.engine("c"));
    expect(names(await (await createTestClient(late)).listTools())).toEqual(["alpha", "beta"]);
    late.startEngine();
    expect(names(await (await createTestClient(late)).listTools())).toEqual(["beta"]);
  });

  it("a module's handle op travels under the parent's name", async () => {
    const bus = sharedBus();
    const process = (node: string) => {
      const module = createServer({ name: "gh", version: "1" });
      module.tool({ name: "issue", description: "Issue", handler: () => "i" });
      const parent = createServer({ name: "app", version: "1", engine: bus.engine(node) }).mount("gh", module);
      parent.startEngine();
      return { module, parent };
    };
    const one = process("a");
    const two = process("b");
    const stream = await (await createTestClient(two.parent)).listen({ toolsListChanged: true });
    one.module.registered("tool", "issue")?.disable();
    expect((await stream.next()).method).toBe("notifications/tools/list_changed");
    expect(two.module.registered("tool", "issue")?.enabled).toBe(false);
    expect(bus.sent[0]).toEqual({ type: "handle", kind: "tools", name: "gh.issue", op: "disable" });
  });
});
