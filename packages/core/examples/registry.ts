// The @example blocks of core's registry/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { defineTool, type Guard, type Server, type ToolDefinition } from "@toolsmith/core";
import { z } from "zod";

export function adder() {
  //#region ToolDefinition
  const add = defineTool({
    name: "add",
    description: "Add two numbers",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => a + b,
  });
  //#endregion ToolDefinition
  return add;
}

export function switchOff(server: Server, wipe: () => string): void {
  //#region Registered
  const admin = server.tool({ name: "wipe", description: "Wipe all", handler: wipe });
  admin.disable(); // gone from tools/list, and calling it answers as for an unknown tool
  //#endregion Registered
}

export function chart(server: Server, CHART_HTML: string, handler: ToolDefinition<undefined>["handler"]): void {
  //#region ToolUi
  server.tool({
    name: "chart",
    description: "Chart",
    ui: { html: CHART_HTML, csp: { resourceDomains: ["https://cdn.example.com"] } },
    handler,
  });
  //#endregion ToolUi
}

export function adminOnly(server: Server, handler: ToolDefinition<undefined>["handler"]): void {
  //#region Guard
  const guard: Guard = (ctx) => ctx.auth?.scopes.includes("admin") ?? false;
  server.tool({ name: "wipe", description: "Wipe all", guard, handler });
  //#endregion Guard
}

export function gitWorkflow(server: Server): void {
  //#region SkillDefinition
  server.skill({
    path: "git-workflow",
    files: {
      "SKILL.md":
        "---\nname: git-workflow\ndescription: Follow this team's Git conventions\n---\n\nBranch from main.\n",
      "references/commits.md": "Write the why in the body.\n",
    },
  });
  //#endregion SkillDefinition
}
