import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { PackageSources } from "./template/package-json.js";
import { TOOLSMITH_PACKAGES, type ToolsmithPackage } from "./versions.js";

const run = promisify(execFile);
/** The folder inside a generated project that holds the packed tarballs. */
export const LOCAL_PACKAGES_DIR = "toolsmith-packages";
// pnpm pack turns `workspace:*` into real versions; npm pack would leave them unresolvable.
const PNPM = "pnpm@12.4.2";

/** The pinned pnpm as a command: its binary, found once through npx (a second each), or npx itself on Windows. */
export async function pinnedPnpm(): Promise<{ command: string; args: string[]; shell: boolean }> {
  if (process.platform === "win32") return { command: "npx.cmd", args: ["-y", PNPM], shell: true };
  const { stdout } = await run("npx", ["-y", "-p", PNPM, "-c", "command -v pnpm"]);
  return { command: stdout.trim(), args: [], shell: false };
}

/** A checkout that cannot give us its packages, said with what to do. */
export class CheckoutError extends Error {
  override name = "CheckoutError";
}

/**
 * Pack `packages` from a Toolsmith checkout into a temporary folder, copy the tarballs into
 * `projectDir/toolsmith-packages` and return their `file:` specifiers for package.json.
 */
export async function packLocal(
  checkout: string,
  packages: readonly ToolsmithPackage[],
  projectDir: string,
): Promise<PackageSources> {
  const root = resolve(checkout);
  for (const name of packages) {
    const dir = join(root, "packages", TOOLSMITH_PACKAGES[name]);
    if (!existsSync(join(dir, "package.json"))) {
      throw new CheckoutError(`${root} is not a Toolsmith checkout: ${dir}/package.json is missing`);
    }
    if (!existsSync(join(dir, "dist", "index.js"))) {
      throw new CheckoutError(`${name} is not built in ${root}: run \`npx -y pnpm@12.4.2 build\` there first`);
    }
  }
  const pnpm = await pinnedPnpm();
  const temp = mkdtempSync(join(tmpdir(), "create-toolsmith-pack-"));
  try {
    await Promise.all(
      packages.map(async (name) => {
        const out = join(temp, TOOLSMITH_PACKAGES[name]);
        mkdirSync(out);
        await run(pnpm.command, [...pnpm.args, "pack", "--pack-destination", out], {
          cwd: join(root, "packages", TOOLSMITH_PACKAGES[name]),
          shell: pnpm.shell,
        }).catch((error: Error & { stderr?: string }) => {
          throw new CheckoutError(`packing ${name} failed: ${error.stderr?.trim() || error.message}`);
        });
      }),
    );
    const target = join(projectDir, LOCAL_PACKAGES_DIR);
    mkdirSync(target, { recursive: true });
    const sources: PackageSources = {};
    for (const name of packages) {
      const out = join(temp, TOOLSMITH_PACKAGES[name]);
      const tarball = readdirSync(out).find((file) => file.endsWith(".tgz"));
      if (!tarball) throw new CheckoutError(`packing ${name} made no tarball`);
      copyFileSync(join(out, tarball), join(target, tarball));
      sources[name] = `file:./${LOCAL_PACKAGES_DIR}/${tarball}`;
    }
    return sources;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
