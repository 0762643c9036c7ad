import { describe, expect, it } from "vitest";
import type { AuthInfo, RequestContext } from "../context/context.js";
import { createTestClient } from "../testing/client.js";
import type { Server } from "./servable.js";
import { createServer } from "./server.js";

// A list change is told only to callers who may see an item it changed: a change to what a caller's guards hide
// is none of its business (it would tell them the hidden item exists), in both eras and through modules.

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: [] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

function desk() {
  const s = createServer({ name: "desk", version: "1" });
  const wipe = s.tool({ name: "wipe", description: "Admins", guard: isAdmin, handler: () => "wiped" });
  const echo = s.tool({ name: "echo", description: "Anyone", handler: () => "echo" });
  const audit = s.prompt({ name: "audit", description: "Admins", guard: isAdmin, handler: () => "audit" });
  return { s, wipe, echo, audit };
}

// What each caller is told since the last look: a handshake session's list changes, a 2026-07-28 listen stream's.
async function listeners(server: Server): Promise<() => Promise<Record<string, string[]>>> {
  const callers: [string, () => string[]][] = [];
  for (const [who, auth] of [
    ["admin", admin],
    ["reader", reader],
  ] as const) {
    const session = await createTestClient(server, { protocolVersion: "2025-11-25", auth });
    callers.push([`${who} session`, () => session.notifications.map((n) => n.method)]);
    const listen = await (await createTestClient(server, { auth })).listen({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    callers.push([`${who} listen`, () => listen.notifications.map((n) => n.method)]);
  }
  const seen = new Map<string, number>();
  return async () => {
    await tick();
    const told: Record<string, string[]> = {};
    for (const [name, methods] of callers) {
      const all = methods();
      told[name] = all.slice(seen.get(name) ?? 0);
      seen.set(name, all.length);
    }
    return told;
  };
}

const TOOLS = "notifications/tools/list_changed";
const PROMPTS = "notifications/prompts/list_changed";
const onlyAdmins = (...methods: string[]) => ({
  "admin session": methods,
  "admin listen": methods,
  "reader session": [],
  "reader listen": [],
});
const everyone = (...methods: string[]) => ({
  "admin session": methods,
  "admin listen": methods,
  "reader session": methods,
  "reader listen": methods,
});

describe.each([
  ["served alone", (s: Server) => s],
  ["in a mounted module", (s: Server) => createServer({ name: "app", version: "1" }).mount("mod", s)],
])("list changes reach who may see the change (%s)", (_layout, wrap) => {
  it("a guarded item's enable, disable, update and removal are told to those its guard allows", async () => {
    const { s, wipe, audit } = desk();
    const told = await listeners(wrap(s));
    wipe.disable();
    expect(await told()).toEqual(onlyAdmins(TOOLS));
    wipe.enable();
    audit.update({ description: "Admins, still" });
    expect(await told()).toEqual(onlyAdmins(TOOLS, PROMPTS));
    s.tool({ name: "purge", description: "Admins", guard: isAdmin, handler: () => "purged" });
    expect(await told()).toEqual(onlyAdmins(TOOLS));
    wipe.remove();
    expect(await told()).toEqual(onlyAdmins(TOOLS));
  });

  it("a change anyone may see is told to everyone: an unguarded item, a guard lifted, changes told together", async () => {
    const { s, wipe, echo } = desk();
    const told = await listeners(wrap(s));
    echo.disable();
    expect(await told()).toEqual(everyone(TOOLS));
    wipe.update({ guard: undefined });
    expect(await told()).toEqual(everyone(TOOLS));
    wipe.update({ guard: isAdmin });
    expect(await told()).toEqual(everyone(TOOLS));
    wipe.disable();
    echo.enable();
    expect(await told()).toEqual(everyone(TOOLS));
  });

  it("changing a disabled item changes no list: nobody is told", async () => {
    const { s, echo } = desk();
    echo.disable();
    const told = await listeners(wrap(s));
    echo.update({ description: "Still off" });
    echo.remove();
    expect(await told()).toEqual(everyone());
  });
});

describe("many guarded items registered together", () => {
  const COUNT = 20_000;

  // A session (2025-11-25) and a listen stream (2026-07-28) for a caller, and what each was told since.
  async function caller(server: Server, subject: string) {
    const auth: AuthInfo = { subject, scopes: [] };
    const session = await createTestClient(server, { protocolVersion: "2025-11-25", auth });
    const listen = await (await createTestClient(server, { auth })).listen({ toolsListChanged: true });
    return {
      session,
      told: () => [...session.notifications, ...listen.notifications].map((n) => n.method),
    };
  }

  it("each tool's own guard still decides who hears of them, and who sees them", async () => {
    const s = createServer({ name: "many", version: "1" });
    s.tool({ name: "first", description: "Nobody", guard: () => false, handler: () => "first" });
    const asked = new Map<string, number>();
    const last = await caller(s, `user-${COUNT - 1}`);
    const nobody = await caller(s, "nobody");
    for (let i = 0; i < COUNT; i++) {
      s.tool({
        name: `t${i}`,
        description: `Tool ${i}`,
        guard: (ctx) => {
          const subject = ctx.auth?.subject ?? "";
          asked.set(subject, (asked.get(subject) ?? 0) + 1);
          return subject === `user-${i}`;
        },
        handler: () => `${i}`,
      });
    }
    await tick();
    expect(last.told()).toEqual([TOOLS, TOOLS]);
    expect(nobody.told()).toEqual([]);
    // Refused by every one of them: each guard was asked, once for the session and once for the listen stream.
    expect(asked.get("nobody")).toBe(2 * COUNT);
    expect((await last.session.listTools()).map((tool) => tool.name)).toEqual([`t${COUNT - 1}`]);
    expect(await nobody.session.listTools()).toEqual([]);
  });

  it("a guard shared by all of them is asked once per caller, not once per tool", async () => {
    const s = createServer({ name: "shared", version: "1" });
    s.tool({ name: "first", description: "Nobody", guard: () => false, handler: () => "first" });
    let asked = 0;
    const admins = (ctx: RequestContext) => {
      asked += 1;
      return isAdmin(ctx);
    };
    const ada = await caller(s, "ada");
    for (let i = 0; i < COUNT; i++) s.tool({ name: `t${i}`, description: "Admins", guard: admins, handler: () => "" });
    await tick();
    expect(ada.told()).toEqual([]);
    // Once for the session, once for the listen stream.
    expect(asked).toBe(2);
  });
});
