import { describe, expect, it } from "vitest";
import { createMemoryEngine } from "./memory.js";
import { partialEngine, ROLE_MEMBERS } from "./roles.test-util.js";

describe("the engine's roles", () => {
  it("are nine, 44 members in all, each member in one role", () => {
    const counts = Object.fromEntries(Object.entries(ROLE_MEMBERS).map(([role, members]) => [role, members.length]));
    expect(counts).toEqual({
      EngineLifecycle: 5,
      SessionStore: 7,
      EventLog: 2,
      SessionChannel: 4,
      RequestLeases: 3,
      ServerBus: 3,
      TaskStore: 9,
      KeyValueStore: 5,
      RecordStore: 6,
    });
    const all = Object.values(ROLE_MEMBERS).flat();
    expect(new Set(all).size).toBe(all.length);
    // The memory engine has each of them, and nothing else an engine must have.
    const engine = createMemoryEngine();
    for (const member of all) expect(member in engine, member).toBe(true);
    engine.close();
  });

  it("a partial engine refuses the members of a role it does not play, and hears nothing for it", () => {
    const memory = createMemoryEngine();
    const { engine, refused } = partialEngine(memory, ["ServerBus"]);
    engine.start({ name: "partial" });
    expect(engine.node).toBe(memory.node);
    engine.broadcast({ type: "handle", kind: "tools", name: "x", op: "disable" });
    expect(engine.handleOps()).toEqual([{ type: "handle", kind: "tools", name: "x", op: "disable" }]);
    expect(() => engine.loadTask("t")).toThrow(/does not play TaskStore \(loadTask\)/);
    expect(() => engine.sessionIds()).toThrow(/does not play SessionStore/);
    expect(typeof engine.onOrphanTask(() => {})).toBe("function");
    expect(refused).toEqual(["loadTask", "sessionIds"]);
    memory.close();
  });
});
