import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { PackageSources } from "./template/package-json.js";

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

/** A publishable `@toolsmith/*` package of a checkout: its name and its folder. */
export interface WorkspacePackage {
  name: string;
  dir: string;
}

/**
 * Every publishable `@toolsmith/*` package under `checkout/packages` (not private), read from the checkout itself so
 * that a new package is packed too; the scaffolder (create-toolsmith) is never a project's dependency.
 */
export function publishablePackages(checkout: string): WorkspacePackage[] {
  const root = resolve(checkout);
  const packages = join(root, "packages");
  if (!existsSync(join(packages, "core", "package.json"))) {
    throw new CheckoutError(`${root} is not a Toolsmith checkout: ${join(packages, "core")}/package.json is missing`);
  }
  return readdirSync(packages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packages, entry.name, "package.json")))
    .map((entry) => {
      const dir = join(packages, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        private?: boolean;
      };
      return { name: manifest.name, dir, private: manifest.private === true };
    })
    .filter((pkg) => !pkg.private && pkg.name.startsWith("@toolsmith/"))
    .map(({ name, dir }) => ({ name, dir }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Pack every publishable package of a Toolsmith checkout into a temporary folder, copy the tarballs into
 * `projectDir/toolsmith-packages` and return their `file:` specifiers, by package name.
 */
export async function packLocal(checkout: string, projectDir: string): Promise<PackageSources> {
  const root = resolve(checkout);
  const packages = publishablePackages(root);
  for (const { name, dir } of packages) {
    if (!existsSync(join(dir, "dist", "index.js"))) {
      throw new CheckoutError(`${name} is not built in ${root}: run \`npx -y pnpm@12.4.2 build\` there first`);
    }
  }
  const pnpm = await pinnedPnpm();
  const temp = mkdtempSync(join(tmpdir(), "create-toolsmith-pack-"));
  const outOf = (name: string) => join(temp, name.replace("/", "+"));
  try {
    await Promise.all(
      packages.map(async ({ name, dir }) => {
        mkdirSync(outOf(name));
        await run(pnpm.command, [...pnpm.args, "pack", "--pack-destination", outOf(name)], {
          cwd: dir,
          shell: pnpm.shell,
        }).catch((error: Error & { stderr?: string }) => {
          throw new CheckoutError(`packing ${name} failed: ${error.stderr?.trim() || error.message}`);
        });
      }),
    );
    const target = join(projectDir, LOCAL_PACKAGES_DIR);
    mkdirSync(target, { recursive: true });
    const sources: PackageSources = {};
    for (const { name } of packages) {
      const tarball = readdirSync(outOf(name)).find((file) => file.endsWith(".tgz"));
      if (!tarball) throw new CheckoutError(`packing ${name} made no tarball`);
      copyFileSync(join(outOf(name), tarball), join(target, tarball));
      // As npm writes it (no "./"): `npm install ./toolsmith-packages/x.tgz` later matches the override exactly.
      sources[name] = `file:${LOCAL_PACKAGES_DIR}/${tarball}`;
    }
    return sources;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
