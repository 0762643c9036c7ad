import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The built fixture, run as a script over stdio (`npx -y pnpm@12.4.2 run build` first): by Node, Bun and Deno. */
export const FIXTURE_SCRIPT = fileURLToPath(new URL("../dist/fixture-server.js", import.meta.url));
if (!existsSync(FIXTURE_SCRIPT))
  throw new Error(`${FIXTURE_SCRIPT} is missing: build with npx -y pnpm@12.4.2 run build`);
