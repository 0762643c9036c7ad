import type { ProjectOptions } from "../options.js";
import { runCommand } from "./package-json.js";
import { DENO_PERMISSIONS } from "./runtime-sources.js";

// The parts of the generated README that differ by runtime: what runs the server, its scripts, and (Workers) the
// deploy steps and what a Worker serves.

const fence = (lang: string, body: string) => `\`\`\`${lang}\n${body}\n\`\`\``;

/** The words that start the built server over stdio, as a host's config gives them. */
export function stdioCommand({ runtime }: ProjectOptions, entry: string): { command: string; args: string[] } {
  if (runtime === "bun") return { command: "bun", args: [entry] };
  if (runtime === "deno") return { command: "deno", args: ["run", ...DENO_PERMISSIONS, entry] };
  return { command: "node", args: [entry] };
}

/** "on Bun" and the like, after "It serves …". */
export function runsOn({ runtime }: ProjectOptions): string {
  if (runtime === "bun") return ", on [Bun](https://bun.sh) (`Bun.serve` with Toolsmith's web-standard handler)";
  if (runtime === "deno") return ", on [Deno](https://deno.com) (`Deno.serve` with Toolsmith's web-standard handler)";
  if (runtime === "workers") return ", from a Cloudflare Worker (`src/worker.ts`, a module Worker's `fetch` handler)";
  return "";
}

/** The scripts table's rows for a Bun, Deno or Workers project (Node's are the README's own). */
export function runtimeScripts(options: ProjectOptions): string[] {
  const run = runCommand(options);
  if (options.runtime === "workers") {
    return [
      "| `npm run build` | compile `src` to `dist` (wrangler bundles `dist/worker.js`) |",
      "| `npm run dev` | build, then `wrangler dev`: the Worker in workerd on this machine, at http://127.0.0.1:8787/mcp |",
      "| `npm start` | `wrangler dev` on the last build |",
      "| `npm run deploy` | build, then `wrangler deploy` (see Deploy) |",
    ];
  }
  const rows = [
    "| `npm run build` | compile `src` to `dist` |",
    `| \`npm run dev\` | build, then run \`dist/main.js\` (\`${run}\`) |`,
    `| \`npm start\` | \`${run}\`${options.transport === "stdio" ? " (stdio: a host normally starts it for you)" : ""} |`,
  ];
  if (options.transport === "both") {
    rows.push("| `npm run dev:http` | the same, serving Streamable HTTP |");
    rows.push("| `npm run start:http` | serve Streamable HTTP on `PORT` (default 3000) |");
  }
  return rows;
}

/** What runs what, said under the scripts table. */
export function runtimeNote({ runtime }: ProjectOptions): string {
  if (runtime === "bun") {
    return "Bun runs the server; Node (20 or later) runs tsc, vitest and Biome, and the Inspector needs Node 22 or later.";
  }
  if (runtime === "deno") {
    return `Deno runs the server with \`${DENO_PERMISSIONS.join(" ")}\`, importing the packages npm installed in \`node_modules\` (\`deno.json\`: \`"nodeModulesDir": "manual"\`); \`src/deno.d.ts\` declares the Deno APIs \`src/main.ts\` uses for tsc. Node (20 or later) runs tsc, vitest and Biome, and the Inspector needs Node 22 or later.`;
  }
  if (runtime === "workers") {
    return "wrangler and the Inspector need Node 22.12 or later.";
  }
  return "The Inspector needs Node 22 or later; the server itself runs on Node 20.";
}

/** The Workers README's own sections: what a Worker serves, secrets, and deploying. */
export function workerSections(options: ProjectOptions): string[] {
  return [
    `## What a Worker serves

Every 2026-07-28 request stands alone, so any isolate answers it: discovery, lists, calls, and \`input_required\`
rounds, whose \`requestState\` is sealed with \`STATE_KEY\` so that the isolate taking the next round can open it.
A 2025-11-25 (handshake-era) session would live in the memory of the isolate that opened it, and its stream (GET)
waits for what other requests do: workerd cancels such a wait as hung, and a deployed Worker runs many isolates,
any of which may take the session's next request. So the Worker serves 2026-07-28 clients alone (\`handshake: false\`):
\`initialize\` is answered 400 with -32022, naming the version to speak. Serve handshake-era clients from Node, Bun
or Deno, with an engine their processes share (\`@toolsmith/redis\`).`,
    `## Secrets and hosts

- \`STATE_KEY\` (a secret, at least 16 bytes): the scaffold wrote a fresh one to \`.dev.vars\` (git-ignored), which
  \`wrangler dev\` reads. The Worker answers 500 without one, or with one shorter.
- \`ALLOWED_HOSTS\` (a variable in \`wrangler.jsonc\`): the Host names clients reach the Worker by, comma-separated.
  Empty, only loopback names are accepted (DNS rebinding protection), as under \`wrangler dev\`.`,
    `## Deploy

${fence(
  "sh",
  `npx wrangler login
openssl rand -base64 32 | npx wrangler secret put STATE_KEY
npx wrangler deploy`,
)}

Then set \`ALLOWED_HOSTS\` in \`wrangler.jsonc\` to the Worker's host (\`${options.name.replace(/^@[^/]+\//, "")}.<your-subdomain>.workers.dev\`,
or your own domain) and deploy again; clients connect to \`https://<that host>/mcp\`.`,
  ];
}
