import { basename, resolve } from "node:path";
import validate from "validate-npm-package-name";

/** Why `name` cannot be a new npm package's name; empty when it can. */
export function packageNameProblems(name: string): string[] {
  const { errors = [], warnings = [] } = validate(name);
  return [...errors, ...warnings];
}

/** The directory and package name for what the user typed: `my-server`, `./a/b`, `.` or `@scope/name`. */
export function projectFromTarget(target: string, cwd: string): { dir: string; name: string } {
  if (/^@[^/]+\/[^/]+$/.test(target)) return { dir: resolve(cwd, target.split("/")[1] ?? target), name: target };
  const dir = resolve(cwd, target);
  return { dir, name: basename(dir) };
}

/** `my-server` → `MyServer`: the server class's name. */
export function className(name: string): string {
  const base = name.replace(/^@[^/]+\//, "");
  const pascal = base
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
  const safe = /^[A-Za-z]/.test(pascal) ? pascal : `Server${pascal}`;
  return safe.endsWith("Server") ? safe : `${safe}Server`;
}
